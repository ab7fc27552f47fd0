"""General-domain evidence for validation tests: a council budget, a software changelog, a product test.

Nothing here is about aircraft; the same checks must hold for any analyst's documents.
"""

from __future__ import annotations

from datetime import date

from engine.results import Constraints, Entity, Intent, TimeConstraint
from tests.reflection.builders import evidence

# -- a city council budget: the 2023 report and the 2024 report -------------------------------------
BUDGET_2023 = evidence(
    "budget-2023#2", "The parks department budget is $4.2 million. Library funding is $2.9 million.",
    "Riverton City Council budget report 2023", updated=date(2023, 3, 1), authority=4)
BUDGET_2024 = evidence(
    "budget-2024#2", "The parks department budget is $4.8 million. Library funding is $3.1 million.",
    "Riverton City Council budget report 2024", updated=date(2024, 3, 5), authority=4)
BUDGET_RUMOUR = evidence(
    "parks-blog#1", "A local blog says the parks department budget will be about $5 million.",
    "Riverton parks blog post")  # no date: unknown, never "outside" a window
ANNUAL_REPORT_2023 = evidence(
    "annual-2023#4", "In the year the parks department spent $4.1 million.",
    "Riverton annual report 2023", updated=date(2024, 2, 20))  # about 2023, published in 2024


def since(year: int, question: str = "What is the parks department budget?") -> Intent:
    """``question`` asked "since ``year``" (what Perception returns for that phrase)."""
    window = TimeConstraint(text=f"since {year}", start=date(year, 1, 1), end=date(2026, 12, 2))
    return Intent(action="lookup", raw_query=f"{question.rstrip('?')} since {year}?",
                  constraints=Constraints(time=window))


# -- a software changelog: version 2.0 supersedes 1.0 ---------------------------------------------
CHANGELOG_1 = evidence(
    "acme-1.0#1", "The default config file is ~/.acme/config.ini. The --force flag skips confirmation.",
    "Acme CLI 1.0 release notes", updated=date(2022, 5, 1), series="acme-cli-release-notes", revision="1.0")
CHANGELOG_2 = evidence(
    "acme-2.0#1", "The default config file moves to ~/.config/acme/config.toml. The --force flag is removed; "
    "use --yes instead.",
    "Acme CLI 2.0 release notes", updated=date(2024, 2, 10), series="acme-cli-release-notes", revision="2.0")
GUIDE_1 = evidence(  # no series: only its own text says it is out of date
    "acme-guide-1#1", "Status: superseded by the Acme CLI 2.0 user guide.\nThe default config file is "
    "~/.acme/config.ini and is read at start-up.",
    "Acme CLI 1.x user guide", updated=date(2022, 6, 1))
GUIDE_2 = evidence(
    "acme-guide-2#1", "The default config file is ~/.config/acme/config.toml and is read at start-up. "
    "This guide supersedes the 1.x user guide.",
    "Acme CLI 2.0 user guide", updated=date(2024, 3, 1))
BILLING_FAQ = evidence(
    "acme-billing#1", "Invoices are sent on the first day of each month.", "Acme cloud billing FAQ",
    updated=date(2024, 5, 1))
CONFIG_QUESTION = Intent(action="lookup", raw_query="Where is the Acme CLI default config file?")

# -- a three-way product comparison: one product only has 2023 figures -----------------------------
PRODUCTS = ("Zephyr X1", "Nimbus 5", "Orion Pro")
BATTERY_2024 = evidence(
    "battery-2024#1", "Zephyr X1: battery life 14.5 hours in the video test.\nNimbus 5: battery life 11.2 hours "
    "in the video test.", "Laptop battery test 2024", updated=date(2024, 11, 1))
ORION_2023 = evidence(
    "orion-2023#1", "The Orion Pro battery life was 9.8 hours in our video test.", "Orion Pro review 2023",
    updated=date(2023, 10, 1))
ORION_2024_WEIGHT = evidence(
    "orion-2024#1", "The Orion Pro weighs 1.3 kg and has a 14 inch screen.", "Orion Pro spec sheet 2024",
    updated=date(2024, 4, 1))
ORION_2024 = evidence(
    "orion-2024#2", "The Orion Pro battery life is 10.6 hours in the video test.", "Orion Pro review 2024",
    updated=date(2024, 9, 1))


def compare_products(year: int | None = 2024) -> Intent:
    """"Compare the battery life of the Zephyr X1, Nimbus 5 and Orion Pro [in ``year``]"."""
    time = (TimeConstraint(text=str(year), start=date(year, 1, 1), end=date(year, 12, 31)) if year else None)
    question = "Compare the battery life of the Zephyr X1, Nimbus 5 and Orion Pro" + (f" in {year}." if year else ".")
    return Intent(action="compare", raw_query=question,
                  entities=tuple(Entity(text=p, label="PRODUCT") for p in PRODUCTS), constraints=Constraints(time=time))
