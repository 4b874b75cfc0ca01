"""`mineclip label`: the URL printed, another host name refused on a loopback address whatever --host
says, and bad input a one-line error that changes nothing."""

import socket
import urllib.error
import urllib.request

import pytest

from mineclip.cli import main as mineclip_main

from helpers.labelling import label_server


def test_the_command_prints_its_url_and_says_when_it_listens_beyond_this_machine(fresh_set, tmp_path):
    out = tmp_path / "labels.jsonl"
    with label_server([str(fresh_set), "--labels", str(out)]) as (proc, url, lines):
        assert url.startswith("http://127.0.0.1:") and not any("--host" in x for x in lines)
        assert "labelling 8 trajectories" in "".join(lines)
        with urllib.request.urlopen(url + "api/progress") as r:
            assert r.status == 200

def test_a_loopback_host_keeps_refusing_other_host_names(fresh_set, tmp_path):
    # `--host 127.0.0.1` or `--host localhost` used to turn the DNS-rebinding check off: the check
    # follows the address the socket listens on, not whether --host was given
    for host in ("127.0.0.1", "localhost"):
        with label_server([str(fresh_set), "--labels", str(tmp_path / "labels.jsonl"), "--host", host]) as (
                proc, url, lines):
            assert not any("(--host)" in x for x in lines)  # nothing beyond this machine to warn about
            with urllib.request.urlopen(url + "api/progress") as r:
                assert r.status == 200
            rebound = urllib.request.Request(url + "api/progress", headers={"Host": "attacker.example"})
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(rebound)
            assert e.value.code == 400, host


def test_bad_input_is_a_one_line_error(fresh_set, tmp_path, capsys):
    assert mineclip_main(["label", str(tmp_path / "none.jsonl"), "--labels", str(tmp_path / "o.jsonl")]) == 1
    assert "no set to label" in capsys.readouterr().err
    foreign = tmp_path / "mine.jsonl"
    foreign.write_text('{"id": 1}\n')
    assert mineclip_main(["label", str(fresh_set), "--labels", str(foreign)]) == 1
    assert "without its history" in capsys.readouterr().err and foreign.read_text() == '{"id": 1}\n'
    broken = tmp_path / "broken.jsonl"
    broken.write_text("not json\n")
    assert mineclip_main(["label", str(broken), "--labels", str(tmp_path / "o.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "skipped line 1: broken_json" in err and "nothing to label" in err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert mineclip_main(["label", str(fresh_set), "--labels", str(tmp_path / "o.jsonl"), "--port", str(port)]) == 1
        assert "cannot listen on 127.0.0.1" in capsys.readouterr().err
