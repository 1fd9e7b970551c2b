"""7: a lead whose lease ran out because the team database restarted is told apart from a lead
that died (issue 29, point 5; decision 0034, amended).

`renewed_on`: the start of the database server under which the lead last took or renewed its
lease (`pg_postmaster_start_time()`). A lease renewed before the server now running started
was interrupted by a restart: its holder may be reconnecting, and a teammate gives it one
lease to renew, counted from the server's start — also a teammate whose own command began
after the restart and saw nothing go away. A lease that ran out under this server is a lead
that stopped renewing it.
"""

NAME = "lead_renewed_on_server"
SQL = """
ALTER TABLE team_sync_lead ADD COLUMN renewed_on timestamptz;
"""
