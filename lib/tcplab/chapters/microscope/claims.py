"""What the rules say must happen beside what the model did, and the numbers the prose quotes.

The "paper" of this chapter is the set of rules: RFC 5681, RFC 6582, RFC 6298 and Jacobson
(1988), with the model's documented departures (``tcplab/packet/tcp.py``). For each of Fall
and Floyd's cases the counts (fast retransmits, partial ACKs, time-outs, the packets resent)
come from the derivations of :mod:`.rules`, and the completion time from the rules replayed
by hand on the same path (:mod:`.replay`); for the repeated time-out, the back-off's closed
form (RFC 6298 5.5) from the replay's first RTO. Nothing here reads the model's code; the
model's side comes from the experiments' tables, and each check gives the rules' value
beside the model's (the items of the chapter's ledger.toml are the rules, written once);
:func:`departures_frame` says what each documented departure changes, and
:func:`departure_claims` that none of them changes a decision.

Both sides are exact computations, so the ledger's rule is ``exact`` (the floating-point
floor, :data:`tcplab.ledger.tolerance.EXACT`) for a count or a time, and a statement (true
or false) for a list of packets resent or "the same decisions".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from tcplab import claims, ledger
from tcplab.ledger import tolerance

from .experiments import MicroscopeParams, case_label
from .replay import LETTER, LETTER_MIN_RTO, MODEL, Choices, Replayed, replay
from .rules import CASES, SSTHRESH, WINDOW, W, expected_counts, new_in_first_recovery

__all__ = [
    "DEPARTURES",
    "QUANTITIES",
    "SENDER_NAMES",
    "TABLES",
    "case_claims",
    "chapter_claims",
    "chapter_numbers",
    "comparison_frame",
    "departure_claims",
    "departures_frame",
    "rfc6298_rtos",
    "sample_claims",
    "params_of",
    "round_trip",
    "rounds_claims",
    "rto_claims",
    "rules_cases",
]

#: the experiments the claims and the prose read
TABLES = ("microscope-cases", "microscope-rto")
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
        for quantity, (label, _rfc) in QUANTITIES.items():
            out[_case_key(row.tcp, row.losses, quantity)] = claims.Claim(
                f"{name}: {label}",
                tolerance.computed(float(getattr(row, quantity))),
                paper=float(expected[quantity]),
            )
        out[_case_key(row.tcp, row.losses, "resent")] = claims.holds(
            f"{name}: packets resent, in order, as the rules derive ({expected['resent']})",
            row.resent == expected["resent"],
            "the model's trace of the case",
        )
    return out


def rounds_claims(cases_table: pd.DataFrame) -> dict[str, claims.Claim]:
    """NewReno resends one hole per round trip: k drops take k round trips of recovery (RFC
    6582; Fall and Floyd), from the fast retransmit to the ACK that covers the window. On the
    idle path every retransmission goes out at once, so the closed form is exact."""
    r = round_trip(params_of(cases_table))
    out = {}
    for row in cases_table[cases_table["tcp"] == "newreno"].itertuples(index=False):
        out[f"newreno-{row.losses}-rounds"] = claims.Claim(
            f"NewReno, drops {row.drops}: recovery in round trips",
            tolerance.computed(float(row.recovery_s) / r),
            paper=float(row.losses),
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


#: the model's timer: its clock's granularity and its RTO floor (s; the chapter's departure 4)
GRANULARITY, MIN_RTO = 0.01, 0.2


def rfc6298_rtos(samples: list[float]) -> list[float]:
    """The RTO after each RTT sample by RFC 6298 2.2 (the first: SRTT = R, RTTVAR = R/2) and
    2.3 (RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R|, then SRTT <- 7/8 SRTT + 1/8 R), RTO = SRTT +
    max(G, 4 RTTVAR), rounded up to the clock's granularity G and at least the floor."""
    out = []
    srtt = rttvar = 0.0
    for j, r in enumerate(samples):
        if j == 0:
            srtt, rttvar = r, r / 2
        else:
            rttvar = 0.75 * rttvar + 0.25 * abs(srtt - r)
            srtt = 0.875 * srtt + 0.125 * r
        rto = srtt + max(GRANULARITY, 4 * rttvar)
        out.append(max(MIN_RTO, GRANULARITY * math.ceil(rto / GRANULARITY - 1e-9)))
    return out


def sample_claims(rto_table: pd.DataFrame) -> dict[str, claims.Claim]:
    """The RTO the model sets at each clean RTT sample before the first loss, beside RFC 6298
    2.2 and 2.3 applied by hand to the same samples: the first, and the largest difference."""
    first_loss = rto_table.loc[rto_table["event"].isin(["fast_retransmit", "timeout"]), "time"]
    before = rto_table[(rto_table["time"] < first_loss.min()) & rto_table["rtt_sample"].notna()]
    rules = rfc6298_rtos([float(r) for r in before["rtt_sample"]])
    model = before["rto"].to_numpy(dtype=float)
    return {
        "rto-first": claims.Claim(
            "RTO after the first RTT sample: 3 R, rounded up to the clock (s)",
            tolerance.computed(float(model[0])),
            paper=rules[0],
        ),
        "rto-samples": claims.Claim(
            f"RTO after each of the {len(rules)} RTT samples before the first loss: the "
            "largest difference from the rules (s)",
            tolerance.computed(float(np.max(np.abs(model - np.asarray(rules))))),
            paper=0.0,
        ),
    }


def rto_claims(rto_table: pd.DataFrame, params: MicroscopeParams | None = None) -> dict:
    """The time-outs' times and RTOs, Karn's rule on the first ACK after them, and the RTO
    once a clean sample comes, each from :func:`_rto_rules` beside the model's trace."""
    params = params or MicroscopeParams()
    rules = _rto_rules(params)
    timeouts = rto_table[rto_table["event"] == "timeout"]
    out: dict[str, claims.Claim] = {}
    for j, (t, rto) in enumerate(zip(rules["times"], rules["rtos"], strict=True), start=1):
        if j > len(timeouts):  # the model has no such time-out: the rule's fails
            for key in (f"rto-expiry-{j}", f"rto-backoff-{j}"):
                out[key] = claims.holds(f"Time-out {j} happens", False, "the model's trace")
            continue
        seen = timeouts.iloc[j - 1]
        out[f"rto-expiry-{j}"] = claims.Claim(
            f"Time-out {j} at t_FR + rho (2^{j} - 1) (s)",
            tolerance.computed(float(seen["time"])),
            paper=t,
        )
        out[f"rto-backoff-{j}"] = claims.Claim(
            f"RTO after time-out {j}: 2^{j} rho (s)",
            tolerance.computed(float(seen["rto"])),
            paper=rto,
        )
    after = rto_table[(rto_table["event"] == "ack") & (rto_table["time"] > rules["times"][-1])]
    out["rto-karn"] = claims.Claim(
        "RTO on the first new ACK after the time-outs (no sample: Karn) (s)",
        tolerance.computed(float(after["rto"].iloc[0])),
        paper=rules["karn_rto"],
    )
    out.update(sample_claims(rto_table))
    clean = after[after["rtt_sample"].notna()]
    out["rto-reset"] = claims.Claim(
        "RTO after the next clean RTT sample (s)",
        tolerance.computed(float(clean["rto"].iloc[0])),
        paper=rules["sampled_rto"],
    )
    return out


#: the rule each documented departure sets aside (the key of its claim, the RFC's words)
DEPARTURE_RULES = {
    "ssthresh from FlightSize": (
        "flightsize", "RFC 5681 3.1, eq. 4: ssthresh = max(FlightSize / 2, 2 SMSS)",
    ),
    "ssthresh held on a repeated time-out": (
        "repeated-timeout",
        "RFC 5681 3.1: eq. 4 only when the segment has not yet been resent by the timer",
    ),
    "no timer restart at a fast retransmit": (
        "timer-restart",
        "RFC 6298 5.1, 5.3: the timer started when not running, restarted on new data",
    ),
    "min RTO 1 s": ("min-rto", "RFC 6298 2.4: an RTO below 1 s SHOULD be rounded up to 1 s"),
    "all four (the RFCs to the letter)": ("letter", "RFC 5681 3.1 and RFC 6298 2.4, 5.1, 5.3"),
}  # fmt: skip


def _decisions(events: pd.DataFrame) -> tuple[int, int, str]:
    """A trace's decisions: its fast retransmits, its time-outs, the packets it resent."""
    kinds = events["event"]
    resent = " ".join(str(int(s)) for s in events.loc[kinds == "retransmit", "seq"])
    return int((kinds == "fast_retransmit").sum()), int((kinds == "timeout").sum()), resent


def departure_claims(cases_table: pd.DataFrame) -> dict[str, claims.Claim]:
    """For each documented departure undone alone, and all four undone (the RFCs to the
    letter): the rules make the same decisions as the model in every one of Fall and Floyd's
    cases (the same fast retransmits, time-outs and packets resent, in order), a statement
    checked against the model's ``microscope-cases`` table."""
    params = params_of(cases_table)
    out: dict[str, claims.Claim] = {}
    for name, (choices, min_rto) in DEPARTURES.items():
        key, rule = DEPARTURE_RULES[name]
        extra = {} if min_rto is None else {"min_rto": min_rto}
        same = True
        for row in cases_table.itertuples(index=False):
            letter = _replay_case(row.tcp, CASES[int(row.losses)], params, choices=choices, **extra)
            model = (int(row.fast_retransmits), int(row.timeouts), str(row.resent))
            same = same and _decisions(letter.events) == model
        out[f"departure-{key}"] = claims.holds(
            f"The RFC's own choice ({name}) changes no decision in the twelve cases: the same "
            f"fast retransmits, time-outs and packets resent as the model ({rule})",
            same,
            "the rules replayed to the letter on each of Fall and Floyd's cases",
        )
    return out


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, claims.Claim]:
    """Every claim of the chapter, keyed, from the tables of :data:`TABLES`."""
    cases = tables["microscope-cases"]
    return {
        **case_claims(cases),
        **rounds_claims(cases),
        **rto_claims(tables["microscope-rto"]),
        **departure_claims(cases),
    }


def comparison_frame(found: Mapping[str, claims.Claim]) -> pd.DataFrame:
    """The cases' claims as the chapter prints them: one row per (sender, drops), a cell per
    quantity reading "rules / model", the packets the rules resend (and whether the model
    resent the same), and whether every one of them agrees."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    agrees = {k: v == "reproduced" for k, v in ledger.check_statuses("microscope", found).items()}
    for key, claim in found.items():
        parts = key.split("-", 2)
        if len(parts) != 3 or parts[2] not in QUANTITIES:
            continue  # the time-out's and the round trips' claims, and the resent lists
        tcp, losses, quantity = parts
        row = rows.setdefault((SENDER_NAMES[tcp], case_label(CASES[int(losses)])), {})
        shown = "{:.4f}" if quantity == "completion_s" else "{:.0f}"
        row[QUANTITIES[quantity][0]] = f"{shown.format(claim.paper)} / {shown.format(claim.value)}"
        resent_key = _case_key(tcp, int(losses), "resent")
        listed = found[resent_key].claim.rsplit("(", 1)[-1].rstrip(")")
        row["packets resent"] = listed + ("" if agrees[resent_key] else " / other packets")
        row["agree"] = row.get("agree", agrees[resent_key]) and agrees[key]
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
