"""The report of a check run in three forms: a summary for people, JUnit XML for CI, JSON.

Bot text (offending lines, leftover commands) is quoted with protocols.wire.quote in the
summary and the XML, so no bot can write to a terminal or break a document; the JSON
holds it as a JSON string. A line that was not UTF-8 comes with its bytes escaped already
(\\xNN): it is quoted without a second escape, so all three show the same \\xNN.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from protocols.wire import quote
from referee.conformance.suite import Report
from referee.conformance.verdict import Status, Verdict
from referee.printable import printable

JSON_VERSION = 1
# Characters XML 1.0 cannot hold at all, escaped or not.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def summary_line(verdict: Verdict) -> str:
    """`PASS  name  0.81 s  evidence`, and the offending line quoted on a line of its own."""
    text = (f"{verdict.status.name:4}  {verdict.name:<44} {verdict.seconds:7.2f} s  "
            f"{printable(verdict.evidence)}")
    if verdict.line is not None:
        text += f"\n      line: {_quoted_line(verdict.line, verdict)}"
    if verdict.stderr:
        text += "\n      its stderr ended with:" + "".join(
            f"\n        {printable(line)}" for line in verdict.stderr)
    return text


def closing_lines(report: Report) -> list[str]:
    counts = ", ".join(f"{report.count(s)} {s.value}" for s in Status if report.count(s))
    verdict = "conforms" if report.passed else "does not conform"
    return [f"{len(report.verdicts)} checks ({counts}) in {report.seconds:.1f} s: "
            f"{report.bot} {verdict}"]


def to_json(report: Report) -> dict[str, Any]:
    return {"version": JSON_VERSION, "game": report.game, "bot": report.bot,
            "quick": report.quick, "passed": report.passed,
            "seconds": round(report.seconds, 3),
            "checks": [v.to_json() for v in report.verdicts]}


def write_json(report: Report, path: Path) -> None:
    path.write_text(json.dumps(to_json(report), indent=2) + "\n", encoding="utf-8")


def junit(report: Report) -> ET.ElementTree:
    """One testsuite, one testcase per check: a failure carries its evidence, a skip its
    reason, a warning goes to the testcase's system-out; the last lines of the bot's
    stderr where it faulted go to its system-err."""
    suite = ET.Element("testsuite", {
        "name": f"referee check {report.game} {report.bot}",
        "tests": str(len(report.verdicts)), "failures": str(report.count(Status.FAIL)),
        "skipped": str(report.count(Status.SKIP)), "errors": "0",
        "time": f"{report.seconds:.3f}"})
    for verdict in report.verdicts:
        suite.append(_testcase(report, verdict))
    return ET.ElementTree(suite)


def _testcase(report: Report, verdict: Verdict) -> ET.Element:
    case = ET.Element("testcase", {"classname": f"referee.check.{report.game}",
                                   "name": _xml(verdict.name), "time": f"{verdict.seconds:.3f}"})
    evidence = _xml(verdict.evidence)
    body = (evidence if verdict.line is None
            else f"{evidence}\nline: {_quoted_line(verdict.line, verdict)}")
    if verdict.status is Status.FAIL:
        ET.SubElement(case, "failure", {"message": evidence, "type": "conformance"}).text = body
    elif verdict.status is Status.SKIP:
        ET.SubElement(case, "skipped", {"message": evidence})
    else:
        ET.SubElement(case, "system-out").text = f"{verdict.status.name}: {body}"
    if verdict.stderr:  # the bot's own last words: a traceback, a compiler's error
        ET.SubElement(case, "system-err").text = _xml("\n".join(verdict.stderr))
    return case


def write_junit(report: Report, path: Path) -> None:
    tree = junit(report)
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)


def _quoted_line(line: str, verdict: Verdict) -> str:
    return quote(line, escaped=verdict.line_escaped)


def _xml(text: str) -> str:
    return _NOT_XML.sub(lambda m: repr(m.group())[1:-1], text)


