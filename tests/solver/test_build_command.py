from io import StringIO

from django.core.management import call_command

from games.solver.table import ENV_DIRECTORY


def test_the_build_command_writes_a_table_per_rule_set_and_reports_the_published_values(
    tmp_path, monkeypatch
):
    monkeypatch.setenv(ENV_DIRECTORY, str(tmp_path))
    out = StringIO()
    call_command("build_solver_tables", "--workers", "2", stdout=out)
    text = out.getvalue()
    assert "classic13: expected 254.5877" in text
    assert "yatzy: expected 248.4400" in text
    assert len(list(tmp_path.glob("*.npy"))) == 5
