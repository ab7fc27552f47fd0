"""The first schema: traces, audit steps, agent runs, strategies, experiments, settings, legacy imports.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "traces",
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("trace_id", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("provider", sa.Text(), nullable=False),
        sa.Column("strategy_version", sa.Text(), nullable=False),
        sa.Column("iterations", sa.Integer(), nullable=False),
        sa.Column("total_ms", sa.Float(), nullable=False),
        sa.Column("reflection", sa.Boolean(), nullable=False),
        sa.Column("mode", sa.Text(), nullable=False),
        sa.Column("issue_types", sa.Text(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("user_name", sa.Text(), nullable=True),
        sa.Column("knowledge_bases", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("seq", name="pk_traces"),
        sa.UniqueConstraint("trace_id", name="uq_traces_trace_id"),
    )
    op.create_index("ix_traces_created_at_seq", "traces", ["created_at", "seq"])
    op.create_table(
        "trace_bases",
        sa.Column("trace_id", sa.Text(), nullable=False),
        sa.Column("knowledge_base", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("trace_id", "knowledge_base", name="pk_trace_bases"),
    )
    op.create_table(
        "agent_steps",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.Text(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("ts", sa.Text(), nullable=False),
        sa.Column("user_name", sa.Text(), nullable=False),
        sa.Column("role", sa.Text(), nullable=False),
        sa.Column("tool", sa.Text(), nullable=False),
        sa.Column("arguments", sa.Text(), nullable=False),
        sa.Column("decision", sa.Text(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("result_status", sa.Text(), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_agent_steps"),
    )
    op.create_index("ix_agent_steps_run_id_step", "agent_steps", ["run_id", "step"])
    op.create_table(
        "agent_runs",
        sa.Column("run_id", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.Text(), nullable=False),
        sa.Column("user_name", sa.Text(), nullable=False),
        sa.Column("role", sa.Text(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("request", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("run_id", name="pk_agent_runs"),
    )
    op.create_index("ix_agent_runs_created_at", "agent_runs", ["created_at"])
    op.create_table(
        "strategy_versions",
        sa.Column("version", sa.Text(), nullable=False),
        sa.Column("saved_at", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("strategy", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("version", name="pk_strategy_versions"),
    )
    op.create_table(
        "experiments",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("result", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_experiments"),
    )
    op.create_index("ix_experiments_created_at", "experiments", ["created_at"])
    op.create_table(
        "app_settings",
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_app_settings"),
    )
    op.create_table(
        "legacy_imports",
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("imported_at", sa.Text(), nullable=False),
        sa.Column("rows", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("source", name="pk_legacy_imports"),
    )


def downgrade() -> None:
    for index, table in (("ix_experiments_created_at", "experiments"), ("ix_agent_runs_created_at", "agent_runs"),
                         ("ix_agent_steps_run_id_step", "agent_steps"), ("ix_traces_created_at_seq", "traces")):
        op.drop_index(index, table_name=table)
    for table in ("legacy_imports", "app_settings", "experiments", "strategy_versions", "agent_runs", "agent_steps",
                  "trace_bases", "traces"):
        op.drop_table(table)
