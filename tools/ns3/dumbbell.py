"""One dumbbell scenario in ns-3, matched to tcplab's packet model; prints one JSON line.

Run with the Python of an environment where ``pip install ns3==3.44.post0`` was done (never
tcplab's own environment), from a directory with no other ns-3 build below it (the bindings
search the working directory for their libraries). ``tools/ns3/run.py`` runs every scenario
of the appendix this way, one subprocess each, because a fatal ns-3 error ends the process.

    python dumbbell.py '{"flows": 10, "queue": "droptail", "buffer": 100, ...}'
    python dumbbell.py '[{...}, {...}]'   # several runs in turn, one JSON line each

The topology is tcplab's :class:`DumbbellTopology`: N senders, each on its own access link
(``access_mbps``, no delay) into router A; the bottleneck A -> B (``rate_mbps``,
``delay_ms``); one receiver node behind B on an access link like the senders'. Every ACK
crosses the reverse bottleneck (never congested: ACKs are small). The bottleneck's buffer is
a queue disc of ``buffer - 1`` packets in front of a device queue of one, so that ``buffer``
packets can wait besides the one in transmission, as in tcplab. TCP: NewReno congestion
control with classic (RFC 6582 / RFC 6675) recovery, not PRR; SACK on or off; no
timestamps, no limited transmit, 1460-byte segments (1500-byte packets), initial window 1,
the RTO's floor and clock granularity as given; delayed ACKs on or off. Sender i starts at
``U(0, start_spread)`` seconds from the scenario's own seed. Several runs in one process
start each from a destroyed simulator and reset defaults and addresses; only RED draws from
ns-3's own generator, whose streams continue across the runs of one process.
"""

from __future__ import annotations

import json
import random
import sys
import time

import cppyy
from ns import ns  # ns-3's bindings (slow to import)

cppyy.cppdef(
    r"""
namespace tcplab_ns3 {
using namespace ns3;
uint64_t loss_entries = 0, recovery_entries = 0, rto_doublings = 0;
void OnCongState(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to) {
    if (to == TcpSocketState::CA_LOSS && from != TcpSocketState::CA_LOSS) { loss_entries++; }
    if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY) {
        recovery_entries++;
    }
}
void OnRto(Time from, Time to) {
    if (from.IsStrictlyPositive() && to.GetNanoSeconds() >= 2 * from.GetNanoSeconds()) {
        rto_doublings++;
    }
}
void Connect() {
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/CongState", MakeCallback(&OnCongState));
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/RTO", MakeCallback(&OnRto));
}
struct Sampler {
    Ptr<QueueDisc> disc;
    Ptr<NetDevice> device;
    double step = 0.01, sum = 0.0;
    uint64_t samples = 0;
    void Sample() {
        Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(device);
        sum += disc->GetNPackets() + p2p->GetQueue()->GetNPackets();
        samples++;
        Simulator::Schedule(Seconds(step), &Sampler::Sample, this);
    }
};
}
"""
)
C = cppyy.gbl.tcplab_ns3

DEFAULTS = {
    "flows": 10,
    "queue": "droptail",
    "buffer": 100,
    "rate_mbps": 10.0,
    "delay_ms": 20.0,
    "access_mbps": 100.0,
    "packet_bytes": 1500,
    "sack": False,
    "delayed_ack_ms": None,
    "initial_window": 1,
    "min_rto_ms": 200.0,
    "granularity_ms": 10.0,
    "start_spread": 1.0,
    "warmup": 30.0,
    "duration": 70.0,
    "red_min_th": None,  # default: 0.6 buffer, as tcplab's RED
    "red_max_th": None,  # default: 0.8 buffer
    "red_max_p": 0.1,
    "red_w_q": 0.002,
    "red_gentle": False,
    "timestamps": False,
    "seed": 1,
}


def configure(p: dict) -> None:
    set_default = ns.Config.SetDefault
    set_default("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    set_default("ns3::TcpL4Protocol::RecoveryType", ns.StringValue("ns3::TcpClassicRecovery"))
    set_default("ns3::TcpSocket::SegmentSize", ns.UintegerValue(p["packet_bytes"] - 40))
    set_default("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(p["initial_window"]))
    # 4 MB: no window this grid reaches is limited by them (the bottleneck's bandwidth-delay
    # product plus its buffer is at most 140 packets); a far larger send buffer only fills
    # memory, since the bulk sender writes as much as the socket takes
    set_default("ns3::TcpSocket::SndBufSize", ns.UintegerValue(4 << 20))
    set_default("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(4 << 20))
    delack = p["delayed_ack_ms"]
    set_default("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1 if delack is None else 2))
    if delack is not None:
        set_default("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.MilliSeconds(delack)))
    set_default("ns3::TcpSocketBase::Sack", ns.BooleanValue(bool(p["sack"])))
    set_default("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(bool(p["timestamps"])))
    set_default("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(False))
    set_default("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(p["min_rto_ms"])))
    granularity = ns.MilliSeconds(p["granularity_ms"])
    set_default("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(granularity))


def bottleneck_disc(p: dict):
    tch = ns.TrafficControlHelper()
    size = ns.QueueSizeValue(ns.QueueSize(f"{p['buffer'] - 1}p"))
    if p["queue"] == "droptail":
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", size)
    elif p["queue"] == "red":
        min_th = p["red_min_th"] if p["red_min_th"] is not None else 0.6 * p["buffer"]
        max_th = p["red_max_th"] if p["red_max_th"] is not None else 0.8 * p["buffer"]
        tch.SetRootQueueDisc(
            "ns3::RedQueueDisc",
            "MaxSize", size,
            "MinTh", ns.DoubleValue(min_th),
            "MaxTh", ns.DoubleValue(max_th),
            "LInterm", ns.DoubleValue(1.0 / p["red_max_p"]),
            "QW", ns.DoubleValue(p["red_w_q"]),
            "Wait", ns.BooleanValue(True),
            "Gentle", ns.BooleanValue(bool(p["red_gentle"])),
            "MeanPktSize", ns.UintegerValue(p["packet_bytes"]),
            "LinkBandwidth", ns.DataRateValue(ns.DataRate(f"{p['rate_mbps']}Mbps")),
            "LinkDelay", ns.TimeValue(ns.MilliSeconds(p["delay_ms"])),
        )  # fmt: skip
    else:
        raise ValueError(f"queue={p['queue']!r} is not one of 'droptail', 'red'")
    return tch


def reset() -> None:
    """Forget the previous run: its simulator, attribute defaults, addresses and counters."""
    ns.Simulator.Destroy()
    ns.Config.Reset()
    ns.Ipv4AddressGenerator.Reset()
    C.loss_entries = C.recovery_entries = C.rto_doublings = 0


def run(p: dict) -> dict:
    reset()
    p = {**DEFAULTS, **p}
    n = int(p["flows"])
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(int(p["seed"]) + 1)
    configure(p)
    senders, routers, sink = ns.NodeContainer(), ns.NodeContainer(), ns.NodeContainer()
    senders.Create(n)
    routers.Create(2)
    sink.Create(1)
    access = ns.PointToPointHelper()
    access.SetDeviceAttribute("DataRate", ns.StringValue(f"{p['access_mbps']}Mbps"))
    access.SetChannelAttribute("Delay", ns.StringValue("0ms"))
    access.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue("100000p"))
    neck = ns.PointToPointHelper()
    neck.SetDeviceAttribute("DataRate", ns.StringValue(f"{p['rate_mbps']}Mbps"))
    neck.SetChannelAttribute("Delay", ns.StringValue(f"{p['delay_ms']}ms"))
    neck.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue("1p"))
    stack = ns.InternetStackHelper()
    stack.Install(senders)
    stack.Install(routers)
    stack.Install(sink)
    fifo = ns.TrafficControlHelper()  # every other device: a plain FIFO nothing overflows
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.StringValue("100000p"))
    address = ns.Ipv4AddressHelper()
    for i in range(n):
        devices = access.Install(senders.Get(i), routers.Get(0))
        fifo.Install(devices)
        subnet = ns.Ipv4Address(f"10.{1 + i // 250}.{i % 250}.0")
        address.SetBase(subnet, ns.Ipv4Mask("255.255.255.0"))
        address.Assign(devices)
    neck_devices = neck.Install(routers.Get(0), routers.Get(1))
    discs = bottleneck_disc(p).Install(neck_devices.Get(0))
    fifo.Install(neck_devices.Get(1))
    address.SetBase(ns.Ipv4Address("10.250.0.0"), ns.Ipv4Mask("255.255.255.0"))
    address.Assign(neck_devices)
    sink_devices = access.Install(routers.Get(1), sink.Get(0))
    fifo.Install(sink_devices)
    address.SetBase(ns.Ipv4Address("10.251.0.0"), ns.Ipv4Mask("255.255.255.0"))
    sink_address = address.Assign(sink_devices).GetAddress(1)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    rng = random.Random(int(p["seed"]))
    starts = [rng.uniform(0.0, p["start_spread"]) for _ in range(n)]
    sinks = []
    for i in range(n):
        port = 5000 + i
        sink_helper = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo(),
        )
        apps = sink_helper.Install(sink.Get(0))
        apps.Start(ns.Seconds(0.0))
        sinks.append(apps.Get(0).GetObject[ns.PacketSink]())
        bulk = ns.BulkSendHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(sink_address, port).ConvertTo()
        )
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(p["packet_bytes"] - 40))
        app = bulk.Install(senders.Get(i))
        app.Start(ns.Seconds(starts[i]))

    disc = discs.Get(0)
    sampler = C.Sampler()
    sampler.disc, sampler.device = disc, neck_devices.Get(0)

    began = time.perf_counter()
    ns.Simulator.Stop(ns.Seconds(p["warmup"]))
    ns.Simulator.Run()
    before_rx = [s.GetTotalRx() for s in sinks]
    stats = disc.GetStats()
    before = (stats.nTotalReceivedPackets, stats.nTotalDroppedPackets)
    forced_before = stats.GetNDroppedPackets("Forced drop") if p["queue"] == "red" else 0
    early_before = stats.GetNDroppedPackets("Unforced drop") if p["queue"] == "red" else 0
    C.Connect()
    sampler.Sample()
    ns.Simulator.Stop(ns.Seconds(p["duration"] - p["warmup"]))
    ns.Simulator.Run()
    wall = time.perf_counter() - began
    stats = disc.GetStats()
    rx = [s.GetTotalRx() - b for s, b in zip(sinks, before_rx, strict=True)]
    span = p["duration"] - p["warmup"]
    per_flow = [8.0 * b / span / 1e6 for b in rx]
    arrivals = stats.nTotalReceivedPackets - before[0]
    drops = stats.nTotalDroppedPackets - before[1]
    total = sum(per_flow)
    squares = sum(x * x for x in per_flow)
    out = {
        **p,
        "simulator": "ns-3",
        "ns3_version": "3.44",
        "goodput_mbps": total,
        "per_flow_mbps": per_flow,
        "jain_index": total * total / (n * squares) if squares > 0 else float("nan"),
        "arrivals_after_warmup": int(arrivals),
        "drops_after_warmup": int(drops),
        "drop_rate": drops / arrivals if arrivals else 0.0,
        "timeouts": int(C.loss_entries),
        "rto_doublings": int(C.rto_doublings),
        "fast_retransmits": int(C.recovery_entries),
        "mean_queue": sampler.sum / max(sampler.samples, 1),
        "packets": int(stats.nTotalReceivedPackets),
        "wall_s": wall,
    }
    if p["queue"] == "red":
        out["red_forced_drops"] = int(stats.GetNDroppedPackets("Forced drop") - forced_before)
        out["red_early_drops"] = int(stats.GetNDroppedPackets("Unforced drop") - early_before)
    out["packets_per_wall_s"] = out["packets"] / wall if wall > 0 else float("nan")
    ns.Simulator.Destroy()
    return out


if __name__ == "__main__":
    given = json.loads(sys.argv[1])
    for params in given if isinstance(given, list) else [given]:
        print(json.dumps(run(params)), flush=True)
