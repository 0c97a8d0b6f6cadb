"""Network wiring built flow by flow equals the table built from scratch (the O(N) wiring)."""

from __future__ import annotations

from tcplab.packet import Network, TcpConfig


def test_incremental_wiring_equals_a_full_rebuild() -> None:
    """Connections over shared and private links, added one by one: every link forwards each
    flow to its next hop, and a link whose flows share one next hop needs no table."""
    net = Network()
    net.add_link("core", 10.0, 10.0)
    net.add_link("edge", 10.0, 1.0)
    for i in range(4):
        net.add_link(f"a{i}", 5.0, 1.0)
    paths = [["a0", "core"], ["a1", "edge", "core"], ["a1", "edge", "core"], ["a2", "core"],
             ["a3", "core"], ["edge", "core"], ["a2", "edge"]]  # fmt: skip
    for path in paths:
        net.add_connection([path], TcpConfig(), start=None)
    for name, link in net.links.items():
        hops = net._hops[name]
        if len(set(hops.values())) == 1:
            assert link.dst == next(iter(hops.values())), name
        else:
            assert link.dst == [hops.get(f) for f in range(max(hops) + 1)], name
    receivers = [s.receiver.on_packet for s in net.subflows]
    assert net.links["core"].dst == receivers[:6]
    # the last flow leaves "edge" for its receiver: "edge" becomes a table, built once
    core = net.links["core"].on_arrival
    assert net.links["edge"].dst == [None, core, core, None, None, core, receivers[6]]
    assert net.links["a1"].dst == net.links["edge"].on_arrival  # two flows, one next hop
