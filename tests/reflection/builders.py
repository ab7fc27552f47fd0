"""Small hand-built evidence lists and intents for reflection and validation tests."""

from __future__ import annotations

from datetime import date

from engine.results import Constraints, Entity, Evidence, EvidenceMeta, Intent, TimeConstraint


def evidence(chunk_id: str, text: str, title: str = "", *, updated: date | None = None, authority: int = 3,
             series: str | None = None, revision: str | None = None, credibility: float = 0.5) -> Evidence:
    return Evidence(
        chunk_id=chunk_id, doc_id=chunk_id.split("#")[0], knowledge_base="manuals", text=text, score=1.0,
        credibility=credibility,
        metadata=EvidenceMeta(title=title or chunk_id, update_date=updated, authority=authority, series=series,
                              revision=revision),
    )


def intent(question: str, action: str = "lookup", entities: tuple[str, ...] = (),
           start: date | None = None, end: date | None = None, time_text: str = "") -> Intent:
    time = TimeConstraint(text=time_text or "window", start=start, end=end) if (start or end) else None
    return Intent(action=action, raw_query=question, entities=tuple(Entity(text=e, label="AIRCRAFT") for e in entities),
                  constraints=Constraints(time=time))


AMM_REV12 = evidence(
    "amm-rev12#3",
    "Wheel installation. Torque the axle nut to 150 lbf.ft and safety it with the lock bolt.",
    "A320 AMM 32-41-11 MLG wheel (Rev 12)", updated=date(2025, 3, 1), authority=5,
    series="amm-a320-32-41", revision="Rev 12", credibility=0.9,
)
BRAKE_PIN = evidence(
    "brake-pin#1",
    "Measure the wear pin with the parking brake set. The brake is serviceable while the pin protrudes at least "
    "1.0 mm. Replace the brake when the pin is flush with the housing.",
    "A320 brake wear pin check", updated=date(2024, 5, 2), authority=4, credibility=0.8,
)
SHOP_NOTE = evidence(
    "shop-note#1",
    "Shop note. Old practice was to torque the axle nut to 120 lbf.ft. This note is superseded.",
    "Hangar shop note", updated=date(2019, 7, 10), authority=2, credibility=0.3,
)
AMM_REV11 = evidence(
    "amm-rev11#3",
    "Wheel installation. Torque the axle nut to 140 lbf.ft and safety it with the lock bolt.",
    "A320 AMM 32-41-11 MLG wheel (Rev 11)", updated=date(2023, 2, 10), authority=5,
    series="amm-a320-32-41", revision="Rev 11", credibility=0.8,
)
FAULT_CODES = evidence(
    "fault-codes#1",
    "code: E4027; meaning: Brake temperature sensor fault; action: Replace sensor P/N 201-587-3",
    "AMIS fault code table", updated=date(2024, 1, 15), authority=4,
)
