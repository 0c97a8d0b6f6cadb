"""What the rules say must happen beside what the model did, and the numbers the prose quotes.

The "paper" of this chapter is the set of rules: RFC 5681, RFC 6582, RFC 6298 and Jacobson
(1988), with the model's documented departures (``tcplab/packet/tcp.py``). For each of Fall
and Floyd's cases the counts (fast retransmits, partial ACKs, time-outs, the packets resent)
come from the derivations of :mod:`.rules`, and the completion time from the rules replayed
by hand on the same path (:mod:`.replay`); for the repeated time-out, the back-off's closed
form (RFC 6298 5.5) from the replay's first RTO. Nothing here reads the model's code; the
model's side comes from the experiments' tables. ``tests/test_chapter_claims.py`` checks every
claim; :func:`departures_frame` says what each documented departure changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from tcplab import claims

from .experiments import MicroscopeParams, case_label
from .replay import LETTER, LETTER_MIN_RTO, MODEL, Choices, Replayed, replay
from .rules import CASES, SSTHRESH, WINDOW, W, expected_counts, new_in_first_recovery

__all__ = [
    "COUNT_TOLERANCE",
    "DEPARTURES",
    "EXPECTED_VERDICTS",
    "QUANTITIES",
    "SENDER_NAMES",
    "TABLES",
    "TIME_TOLERANCE",
    "case_claims",
    "chapter_claims",
    "chapter_numbers",
    "comparison_frame",
    "departures_frame",
    "params_of",
    "round_trip",
    "rounds_claims",
    "rto_claims",
    "rules_cases",
]

#: the experiments the claims and the prose read
TABLES = ("microscope-cases", "microscope-rto")
#: every claim agrees: the model follows the rules it documents
EXPECTED_VERDICTS: dict[str, bool] = {}
#: counts must be exact
COUNT_TOLERANCE = 0.0
#: seconds: the replay and the model add the same delays in another order
TIME_TOLERANCE = 1e-9
#: how the book writes each sender
SENDER_NAMES = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "aimd": "AIMD"}
#: the quantities of the table, as the book names them, with the rule each comes from
QUANTITIES = {
    "fast_retransmits": ("fast retransmits", "RFC 5681 3.2; RFC 6582 3.2 step 2"),
    "partial_acks": ("partial ACKs", "RFC 6582 3.2 step 3"),
    "timeouts": ("time-outs", "RFC 6298 5.4-5.6"),
    "retransmits": ("retransmissions", "the derivation in tcplab.chapters.microscope.rules"),
    "completion_s": ("completion (s)", "the rules replayed on the path (replay.py)"),
}
#: each documented departure alone, then all of them: the RFCs' own choice (replay options)
DEPARTURES: dict[str, tuple[Choices, float | None]] = {
    "ssthresh from FlightSize": (replace(MODEL, cut="flight"), None),
    "ssthresh held on a repeated time-out": (replace(MODEL, repeated_timeout="hold"), None),
    "no timer restart at a fast retransmit": (
        replace(MODEL, restart_at_fast_retransmit=False), None,
    ),
    "min RTO 1 s": (MODEL, LETTER_MIN_RTO),
    "all four (the RFCs to the letter)": (LETTER, LETTER_MIN_RTO),
}  # fmt: skip


def round_trip(params: MicroscopeParams) -> float:
    """A packet's round trip on the idle path: the propagation plus one transmission (s)."""
    return params.rtt_ms / 1e3 + 1500 * 8 / (params.rate_mbps * 1e6)


def _replay_case(
    tcp: str, drops: tuple[int, ...], params: MicroscopeParams, **options: Any
) -> Replayed:
    return replay(tcp, drops, packets=params.packets, **params.path(), **options)


def rules_cases(params: MicroscopeParams | None = None) -> pd.DataFrame:
    """What the rules say for each (sender, case), in the layout of the ``microscope-cases``
    experiment: the counts and the packets resent from :func:`.rules.expected_counts`, the
    completion time from the replay."""
    params = params or MicroscopeParams()
    rows = []
    for tcp in params.senders:
        for k, drops in CASES.items():
            expected = expected_counts(tcp, k)
            rows.append(
                {
                    "tcp": tcp,
                    "losses": k,
                    "drops": case_label(drops),
                    "fast_retransmits": expected.fast_retransmits,
                    "partial_acks": expected.partial_acks,
                    "timeouts": expected.timeouts,
                    "retransmits": expected.retransmits,
                    "resent": " ".join(str(s) for s in expected.resent),
                    "completion_s": _replay_case(tcp, drops, params).completion_s,
                }
            )
    return pd.DataFrame(rows)


def _case_key(tcp: str, losses: int, quantity: str) -> str:
    return f"{tcp}-{losses}-{quantity}"


def params_of(cases_table: pd.DataFrame) -> MicroscopeParams:
    """The parameters of a ``microscope-cases`` table: the defaults, with its transfer size."""
    (packets,) = set(cases_table["packets"])
    return replace(MicroscopeParams(), packets=int(packets))


def case_claims(cases_table: pd.DataFrame) -> dict[str, claims.Claim]:
    """One claim per (sender, case, quantity of :data:`QUANTITIES`), and one that the same
    packets are resent in the same order (1 = true)."""
    rules = rules_cases(params_of(cases_table)).set_index(["tcp", "losses"])
    out: dict[str, claims.Claim] = {}
    for row in cases_table.itertuples(index=False):
        expected = rules.loc[(row.tcp, row.losses)]
        if row.drops != expected["drops"]:
            raise ValueError(f"case {row.losses} drops {row.drops}, the rules' {expected['drops']}")
        name = f"{SENDER_NAMES[row.tcp]}, drops {row.drops}"
        for quantity, (label, source) in QUANTITIES.items():
            tolerance = TIME_TOLERANCE if quantity == "completion_s" else COUNT_TOLERANCE
            out[_case_key(row.tcp, row.losses, quantity)] = claims.Claim(
                claim=f"{name}: {label}",
                source=source,
                paper=float(expected[quantity]),
                book=float(getattr(row, quantity)),
                tolerance=tolerance,
            )
        out[_case_key(row.tcp, row.losses, "resent")] = claims.Claim(
            claim=f"{name}: packets resent, in order ({expected['resent']})",
            source="the derivation in tcplab.chapters.microscope.rules",
            paper=1.0,
            book=float(row.resent == expected["resent"]),
            tolerance=0.0,
        )
    return out


def rounds_claims(cases_table: pd.DataFrame) -> dict[str, claims.Claim]:
    """NewReno resends one hole per round trip: k drops take k round trips of recovery (RFC
    6582; Fall and Floyd), each retransmission perhaps queued behind up to W packets."""
    params = params_of(cases_table)
    r = round_trip(params)
    tau = r - params.rtt_ms / 1e3
    out = {}
    for row in cases_table[cases_table["tcp"] == "newreno"].itertuples(index=False):
        out[f"newreno-{row.losses}-rounds"] = claims.Claim(
            claim=f"NewReno, drops {row.drops}: recovery in round trips",
            source="Fall and Floyd 1996: at most one lost packet resent per round trip",
            paper=float(row.losses),
            book=float(row.recovery_s) / r,
            tolerance=row.losses * W * tau / r,
        )
    return out


def _rto_rules(params: MicroscopeParams) -> dict[str, Any]:
    """The repeated time-out by the rules: the replay gives the fast retransmit's time and
    the RTO then in force, rho; RFC 6298 5.5 doubles it at each expiry and (documented) the
    fast retransmit restarts the timer, so expiry j comes at t + rho (2^j - 1), the RTO after
    it is 2^j rho (below max_rto here); Karn's rule keeps the last one on the first new ACK
    (its packet was resent), and the next sample (2.3) ends the back-off."""
    run = replay(params.rto_tcp, params.rto_drops(), packets=params.rto_packets, **params.path())
    ev = run.events
    fast = ev[ev["event"] == "fast_retransmit"].iloc[0]
    expiries = params.rto_losses - 1  # the fast retransmit's copy is lost, then the timer's
    rho = float(fast["rto"])
    last = float(fast["time"]) + rho * (2**expiries - 1)
    acks = ev[(ev["event"] == "ack") & (ev["time"] > last)]
    sampled = acks[acks["rtt_sample"].notna()].iloc[0]
    return {
        "fast_time": float(fast["time"]),
        "rho": rho,
        "times": [float(fast["time"]) + rho * (2**j - 1) for j in range(1, expiries + 1)],
        "rtos": [rho * 2**j for j in range(1, expiries + 1)],
        "karn_rto": rho * 2**expiries,
        "sampled_rto": float(sampled["rto"]),
    }


def rto_claims(rto_table: pd.DataFrame, params: MicroscopeParams | None = None) -> dict:
    """The time-outs' times and RTOs, Karn's rule on the first ACK after them, and the RTO
    once a clean sample comes, each from :func:`_rto_rules` beside the model's trace."""
    params = params or MicroscopeParams()
    rules = _rto_rules(params)
    timeouts = rto_table[rto_table["event"] == "timeout"]
    out: dict[str, claims.Claim] = {}
    for j, (t, rto) in enumerate(zip(rules["times"], rules["rtos"], strict=True), start=1):
        seen = timeouts.iloc[j - 1] if j <= len(timeouts) else None
        out[f"rto-expiry-{j}"] = claims.Claim(
            claim=f"Time-out {j} at t_FR + rho (2^{j} - 1) (s)",
            source="RFC 6298 5.5 (back-off), the timer restarted at the fast retransmit",
            paper=t,
            book=float("nan") if seen is None else float(seen["time"]),
            tolerance=TIME_TOLERANCE,
        )
        out[f"rto-backoff-{j}"] = claims.Claim(
            claim=f"RTO after time-out {j}: 2^{j} rho (s)",
            source="RFC 6298 5.5: double the RTO",
            paper=rto,
            book=float("nan") if seen is None else float(seen["rto"]),
            tolerance=TIME_TOLERANCE,
        )
    after = rto_table[(rto_table["event"] == "ack") & (rto_table["time"] > rules["times"][-1])]
    out["rto-karn"] = claims.Claim(
        claim="RTO on the first new ACK after the time-outs (no sample: Karn) (s)",
        source="RFC 6298 3 (Karn's rule) and 5.7",
        paper=rules["karn_rto"],
        book=float(after["rto"].iloc[0]),
        tolerance=TIME_TOLERANCE,
    )
    clean = after[after["rtt_sample"].notna()]
    out["rto-reset"] = claims.Claim(
        claim="RTO after the next clean RTT sample (s)",
        source="RFC 6298 2.3, 2.4: the back-off ends with a new sample",
        paper=rules["sampled_rto"],
        book=float(clean["rto"].iloc[0]),
        tolerance=TIME_TOLERANCE,
    )
    return out


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, claims.Claim]:
    """Every claim of the chapter, keyed, from the tables of :data:`TABLES`."""
    cases = tables["microscope-cases"]
    return {
        **case_claims(cases),
        **rounds_claims(cases),
        **rto_claims(tables["microscope-rto"]),
    }


def comparison_frame(found: Mapping[str, claims.Claim]) -> pd.DataFrame:
    """The cases' claims as the chapter prints them: one row per (sender, drops), a cell per
    quantity reading "rules / model", the packets the rules resend (and whether the model
    resent the same), and whether every one of them agrees."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for key, claim in found.items():
        parts = key.split("-", 2)
        if len(parts) != 3 or parts[2] not in QUANTITIES:
            continue  # the time-out's and the round trips' claims, and the resent lists
        tcp, losses, quantity = parts
        row = rows.setdefault((SENDER_NAMES[tcp], case_label(CASES[int(losses)])), {})
        shown = "{:.4f}" if quantity == "completion_s" else "{:.0f}"
        row[QUANTITIES[quantity][0]] = f"{shown.format(claim.paper)} / {shown.format(claim.book)}"
        resent = found[_case_key(tcp, int(losses), "resent")]
        listed = resent.claim.rsplit("(", 1)[-1].rstrip(")")
        row["packets resent"] = listed + ("" if resent.within else " / other packets")
        row["agree"] = row.get("agree", resent.within) and claim.within
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.names = ["sender", "drops"]
    labels = [label for label, _ in QUANTITIES.values()]
    labels.insert(labels.index("retransmissions") + 1, "packets resent")
    return frame[[*labels, "agree"]]


def departures_frame(params: MicroscopeParams | None = None) -> pd.DataFrame:
    """Completion time (s) of each case, and of the repeated time-out (last row), by the
    rules with the model's choices, with each documented departure turned back to the RFC's
    choice alone, and with all of them."""
    params = params or MicroscopeParams()
    runs = [(tcp, drops, params.packets) for tcp in params.senders for drops in CASES.values()]
    runs.append((params.rto_tcp, params.rto_drops(), params.rto_packets))
    rows = []
    for tcp, drops, packets in runs:
        setting = replace(params, packets=packets)
        row: dict[str, Any] = {"sender": tcp, "drops": case_label(drops)}
        row["model's choices"] = _replay_case(tcp, drops, setting).completion_s
        for name, (choices, min_rto) in DEPARTURES.items():
            extra = {} if min_rto is None else {"min_rto": min_rto}
            row[name] = _replay_case(tcp, drops, setting, choices=choices, **extra).completion_s
        rows.append(row)
    return pd.DataFrame(rows).set_index(["sender", "drops"])


def chapter_numbers(tables: Mapping[str, pd.DataFrame], scale: str) -> dict[str, Any]:
    """Every number the chapter's prose quotes, from the tables and the rules."""
    params = params_of(tables["microscope-cases"])
    cases = tables["microscope-cases"].set_index(["tcp", "losses"])
    done = cases["completion_s"]
    r = round_trip(params)
    rto = _rto_rules(params)
    letter = departures_frame(params)
    numbers: dict[str, Any] = {
        "rtt_ms": r * 1e3,
        "tau_ms": (r - params.rtt_ms / 1e3) * 1e3,
        "bdp": int(np.floor(r / (r - params.rtt_ms / 1e3))),
        "w": W,
        "ssthresh": SSTHRESH,
        "cwnd_fr": SSTHRESH + 3,
        "second_ssthresh": max(SSTHRESH / 2, 2.0),
        "rho": rto["rho"],
        "rto_t1": rto["times"][0],
        "rto_last": rto["times"][-1],
        "rto_max": rto["rtos"][-1],
        "rto_reset": rto["sampled_rto"],
    }
    for k in CASES:
        numbers[f"new_first_{k}"] = new_in_first_recovery(k)
        for tcp in params.senders:
            numbers[f"done_{tcp}_{k}"] = float(done[(tcp, k)])
            numbers[f"letter_{tcp}_{k}"] = float(
                letter.loc[(tcp, case_label(CASES[k])), "all four (the RFCs to the letter)"]
            )
    for k in (3, 4):  # packets outstanding when Reno's second recovery ends at hole 3
        numbers[f"outstanding_{k}"] = WINDOW[-1] + 1 + new_in_first_recovery(k) - CASES[k][2]
    stalled = _replay_case("reno", CASES[3], params).events
    numbers["reno_wait_3"] = float(stalled[stalled["event"] == "recovery_exit"]["rto"].iloc[-1])
    g = 0.01  # the timer granularity of every run here (run_trace's default)
    numbers["first_rto"] = g * math.ceil(3 * r / g - 1e-9)  # RFC 6298 (2.2): SRTT + 4 R/2
    reno = letter.loc["reno"]
    numbers["floor_cost_3"] = float(reno.loc["14, 26, 28", "min RTO 1 s"] - done[("reno", 3)])
    numbers["flight_effect_max"] = float(
        (reno["ssthresh from FlightSize"] - reno["model's choices"]).abs().max()
    )
    numbers["reno_penalty_3"] = float(done[("reno", 3)] - done[("newreno", 3)])
    numbers["newreno_rounds_4"] = float(cases.loc[("newreno", 4), "recovery_s"] / r)
    return numbers
