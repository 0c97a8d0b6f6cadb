"""ns-3's retransmission time-out during the delayed-ACK runs: data/ns3-rto.csv.

    .venv/bin/python tools/ns3/rto_probe.py --ns3-python /opt/ns3venv/bin/python

The appendix asks whether ns-3's RTO sits on its floor more often than tcplab's when the
receivers delay their ACKs. This probe runs the grid's delayed-ACK scenarios with 30 SACK
connections (the matched 200 ms floor and the probe's 400 ms) exactly as
``tools/ns3/dumbbell.py`` runs them (it imports that script and calls its ``run``), and from
the end of the warm-up reads every sender's RTO and smoothed RTT every 10 ms, and at each
time-out (each doubling of the RTO, as dumbbell.py counts them) what the sender had
outstanding (HighData - SND.UNA, in segments), its window and congestion state before the
time-out acts, and the RTO that expired. ns-3 keeps these in protected members of
``TcpSocketBase``; a small C++ helper reads them through pointers to members. Each run prints
one JSON line: dumbbell.py's results plus the samples (``rto_samples``, ``srtt_samples``:
seconds, one per sender and tick, senders in node order; ``timeout_*``: one per time-out).

With ``--ns3-python`` (tcplab's Python) the script is the driver: it runs itself under ns-3's
Python in a fresh empty directory, one scenario per process, and stores the samples' summary
per run (share on the floor, quartiles) in data/ with the script's hash.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAME = "ns3-rto"


def probe_scenarios() -> list[dict]:
    """The runs: delayed ACKs, 30 SACK flows, both floors, every seed of the grid."""
    from tcplab.chapters.ns3.grid import SCENARIOS, SEEDS

    chosen = [
        s for s in SCENARIOS
        if s.delayed_ack_ms is not None and s.tcp == "sack" and s.flows == 30
    ]  # fmt: skip
    return [s.params(seed) for s in chosen for seed in SEEDS]


def run_in_ns3(params: dict) -> dict:  # runs under ns-3's Python
    sys.path.insert(0, str(HERE))
    import cppyy
    import dumbbell

    cppyy.cppdef(
        r"""
namespace tcplab_rto {
using namespace ns3;
struct Peek : public TcpSocketBase {  // never built: it only names the protected members
    static double Rto(Ptr<TcpSocketBase> s) {
        TracedValue<Time> TcpSocketBase::*rto = &Peek::m_rto;
        return ((*s).*rto).Get().GetSeconds();
    }
    static double Srtt(Ptr<TcpSocketBase> s) {
        Ptr<TcpSocketState> TcpSocketBase::*tcb = &Peek::m_tcb;
        return ((*s).*tcb)->m_srtt.Get().GetSeconds();
    }
    static Ptr<TcpSocketState> Tcb(Ptr<TcpSocketBase> s) {
        Ptr<TcpSocketState> TcpSocketBase::*tcb = &Peek::m_tcb;
        return (*s).*tcb;
    }
    static double Outstanding(Ptr<TcpSocketBase> s) {  // HighData - SND.UNA, in segments
        Ptr<TcpTxBuffer> TcpSocketBase::*tx = &Peek::m_txBuffer;
        Ptr<TcpSocketState> tcb = Tcb(s);
        return double(tcb->m_highTxMark.Get() - ((*s).*tx)->HeadSequence()) / tcb->m_segmentSize;
    }
};
struct RtoSampler;
void OnRto(RtoSampler* sampler, uint32_t i, Time from, Time to);
struct RtoSampler {
    std::vector<Ptr<TcpSocketBase>> sockets;
    std::vector<double> rto, srtt;
    std::vector<double> out_flight, out_cwnd, out_rto;  // at each time-out, before it acts
    std::vector<int> out_state;
    double step = 0.01;
    void Start() {
        for (auto it = NodeList::Begin(); it != NodeList::End(); ++it) {
            for (uint32_t j = 0; j < (*it)->GetNApplications(); ++j) {
                Ptr<BulkSendApplication> app =
                    DynamicCast<BulkSendApplication>((*it)->GetApplication(j));
                if (!app) { continue; }
                Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
                s->TraceConnectWithoutContext(
                    "RTO", MakeBoundCallback(&OnRto, this, uint32_t(sockets.size())));
                sockets.push_back(s);
            }
        }
        Sample();
    }
    void Sample() {
        for (auto& s : sockets) { rto.push_back(Peek::Rto(s)); srtt.push_back(Peek::Srtt(s)); }
        Simulator::Schedule(Seconds(step), &RtoSampler::Sample, this);
    }
};
// a time-out doubles the RTO (dumbbell.py counts these); ReTxTimeout doubles it before it
// sets the window to one segment, so the window and the state read here are those it found
void OnRto(RtoSampler* sampler, uint32_t i, Time from, Time to) {
    if (from.IsStrictlyPositive() && to.GetNanoSeconds() >= 2 * from.GetNanoSeconds()) {
        Ptr<TcpSocketBase> s = sampler->sockets[i];
        Ptr<TcpSocketState> tcb = Peek::Tcb(s);
        sampler->out_flight.push_back(Peek::Outstanding(s));
        sampler->out_cwnd.push_back(double(tcb->m_cWnd.Get()) / tcb->m_segmentSize);
        sampler->out_rto.push_back(from.GetSeconds());
        sampler->out_state.push_back(int(tcb->m_congState.Get()));
    }
}
}
"""
    )
    sampler = cppyy.gbl.tcplab_rto.RtoSampler()
    original = dumbbell.C

    class Hooked:
        """dumbbell.py's C++ namespace, whose Connect (called at the end of the warm-up)
        also starts the RTO sampler."""

        def __getattr__(self, name: str):  # noqa: ANN204
            return getattr(original, name)

        def __setattr__(self, name: str, value: object) -> None:
            setattr(original, name, value)

        def Connect(self) -> None:  # noqa: N802 (ns-3's name)
            original.Connect()
            sampler.Start()

    dumbbell.C = Hooked()
    out = dumbbell.run(params)
    out["rto_samples"] = list(sampler.rto)
    out["srtt_samples"] = list(sampler.srtt)
    out["timeout_outstanding"] = list(sampler.out_flight)
    out["timeout_cwnd"] = list(sampler.out_cwnd)
    out["timeout_rto"] = list(sampler.out_rto)
    out["timeout_state"] = list(sampler.out_state)
    return out


def ns3_version(python: str) -> str:
    """The ns3 package's version in ``python``'s environment (as tools/ns3/run.py reads it)."""
    done = subprocess.run(
        [python, "-m", "pip", "show", "ns3"], capture_output=True, text=True, timeout=120
    )
    found = [line.split(":", 1)[1].strip() for line in done.stdout.splitlines()
             if line.startswith("Version:")]  # fmt: skip
    return found[0] if found else "unknown"


def summary(row: dict) -> dict:
    """One run's samples as the appendix reads them."""
    import numpy as np

    rto, srtt = np.asarray(row.pop("rto_samples")), np.asarray(row.pop("srtt_samples"))
    outstanding = np.asarray(row.pop("timeout_outstanding"))
    cwnd = np.asarray(row.pop("timeout_cwnd"))
    timeout_rto = np.asarray(row.pop("timeout_rto"))
    open_state = np.asarray(row.pop("timeout_state")) == 0  # TcpSocketState::CA_OPEN
    row.pop("per_flow_mbps", None)
    floor = row["min_rto_ms"] / 1e3
    known = srtt > 0  # a sender with no RTT sample yet reports 0
    rto, srtt = rto[known], srtt[known]
    return {
        **row,
        "rto_ticks": int(len(rto)),
        "rto_at_floor": float(np.mean(rto <= floor + 1e-9)),
        "rto_median_s": float(np.median(rto)),
        "rto_p90_s": float(np.percentile(rto, 90)),
        "srtt_median_s": float(np.median(srtt)),
        "timeouts_seen": int(len(outstanding)),
        "timeouts_one_outstanding": float(np.mean(outstanding <= 1.0)),
        "timeouts_window_one": float(np.mean(cwnd <= 1.0)),
        "timeouts_in_open_state": float(np.mean(open_state)),
        "timeout_rto_median_s": float(np.median(timeout_rto)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns3-python", help="python of the ns-3 environment (driver mode)")
    parser.add_argument("--run", help="one run's parameters as JSON (ns-3 mode)")
    args = parser.parse_args(argv)
    if args.run:
        print(json.dumps(run_in_ns3(json.loads(args.run))), flush=True)
        return 0
    import pandas as pd

    from tcplab import cache

    rows = []
    for params in probe_scenarios():
        with tempfile.TemporaryDirectory(prefix="ns3-rto-") as cwd:
            done = subprocess.run(
                [args.ns3_python, str(Path(__file__).resolve()), "--run", json.dumps(params)],
                cwd=cwd, capture_output=True, text=True, timeout=3600,
            )  # fmt: skip
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            raise RuntimeError(f"ns-3 failed on {params}:\n{done.stderr[-2000:]}")
        rows.append(summary(json.loads(lines[-1])))
        at_floor = rows[-1]["rto_at_floor"]
        print(f"seed {params['seed']}, floor {params['min_rto_ms']}: {at_floor:.3f} on the floor")
    meta = {
        "name": NAME,
        "simulator": "ns-3",
        "script": "tools/ns3/rto_probe.py",
        "script_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
        "dumbbell_sha256": hashlib.sha256((HERE / "dumbbell.py").read_bytes()).hexdigest(),
        "ns3_version": ns3_version(args.ns3_python),
        "command": " ".join(["tools/ns3/rto_probe.py", *(argv or sys.argv[1:])]),
        "made": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "rows": len(rows),
        "sample_every_s": 0.01,
    }
    cache.store(cache.Entry(NAME), pd.DataFrame(rows), meta)
    print(f"wrote {NAME}.csv ({len(rows)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
