"""The models folder as the service reads it: one file per model (NAME.yaml and NAME.yml side
by side are a clash, refused with the version served kept), a removed file stops being served
on every worker (404 saying why), and a file put back is served again."""
from __future__ import annotations

import logging

from c45rules.service.audit import model_fingerprint
from c45rules.service.models import ModelFolder

from .conftest import Server, call, crx_test_records, serving, wait_for

SETTLED = 20   # answers in a row that must agree: with 2 workers each request may reach either


def _decide(server: Server, name: str = "crx") -> tuple[int, dict]:
    return call("POST", server.url + f"/v1/models/{name}/decide", crx_test_records()[:1])


def test_twins_are_refused_and_removal_stops_serving_on_every_worker(models, tmp_path, crx_versions):
    old_bytes, new_bytes = crx_versions[0].read_bytes(), crx_versions[1].read_bytes()
    old, new = model_fingerprint(old_bytes), model_fingerprint(new_bytes)
    s = Server(models, f"sqlite:{tmp_path / 'audit.sqlite'}", "--workers", "2").start()
    try:
        assert wait_for(lambda: serving(s) == old, times=SETTLED)
        # a twin: refused on both workers, logged naming both files, the old version served
        (models / "crx.yml").write_bytes(new_bytes)
        assert wait_for(lambda: s.read_log().count("crx.yaml and crx.yml refused") == 2), s.read_log()
        assert "two files for one model; remove one; still serving " + old in s.read_log()
        assert all(serving(s) == old for _ in range(SETTLED))
        # removing one twin serves the other
        (models / "crx.yaml").unlink()
        assert wait_for(lambda: serving(s) == new, times=SETTLED), s.read_log()
        status, body = _decide(s)
        assert status == 200 and body["fingerprint"] == new
        # removing the last file stops serving it: a 404 naming the model and why, on every worker
        (models / "crx.yml").unlink()
        assert wait_for(lambda: _decide(s)[0] == 404, times=SETTLED), s.read_log()
        status, body = _decide(s)
        assert body["field"] == "name" and "model 'crx' is not served" in body["error"]
        assert "crx.yml was removed from the models folder" in body["error"]
        assert call("GET", s.url + "/v1/models")[1]["models"] == []
        assert s.read_log().count("model crx: its file crx.yml was removed from the folder; no longer served") == 2
        # put back, it is served again
        (models / "crx.yaml").write_bytes(old_bytes)
        assert wait_for(lambda: _decide(s)[0] == 200 and serving(s) == old, times=SETTLED), s.read_log()
    finally:
        s.stop()


def test_twins_found_together_serve_nothing_until_one_goes(tmp_path, crx_versions, caplog):
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "crx.yaml").write_bytes(crx_versions[0].read_bytes())
    (folder / "crx.yml").write_bytes(crx_versions[1].read_bytes())
    models = ModelFolder(folder)
    with caplog.at_level(logging.INFO, logger="c45rules.service"):
        models.scan()
        assert models.get("crx") is None and models.all() == []
        assert models.why_not("crx") == "crx.yaml and crx.yml both in the models folder"
        assert "model crx: crx.yaml and crx.yml refused: two files for one model; remove one" in caplog.text
        models.scan()   # logged once, not at every poll
        assert caplog.text.count("refused") == 1
        (folder / "crx.yaml").unlink()
        models.scan()
    assert models.get("crx").fingerprint == model_fingerprint(crx_versions[1].read_bytes())
    assert models.why_not("crx") is None


def test_a_model_file_name_that_is_not_printable_is_refused(tmp_path, crx_versions, caplog):
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "crx.yaml").write_bytes(crx_versions[0].read_bytes())
    # a name of bytes that are not UTF-8, and one holding a control character
    (folder / "bad\udcff.yaml").write_bytes(crx_versions[0].read_bytes())
    (folder / "tab\there.yaml").write_bytes(crx_versions[0].read_bytes())
    models = ModelFolder(folder)
    with caplog.at_level(logging.INFO, logger="c45rules.service"):
        models.scan()
    assert [m.name for m in models.all()] == ["crx"]
    assert "model file 'bad\\udcff.yaml' refused: its name is not printable text" in caplog.text
    assert "model file 'tab\\there.yaml' refused" in caplog.text
