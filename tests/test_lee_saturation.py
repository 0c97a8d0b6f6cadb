"""The shared path's variants (tcplab.chapters.lee.saturation): each changes one thing."""

from __future__ import annotations

from dataclasses import fields

from tcplab.chapters.lee.saturation import BDP_PACKETS, VARIANTS, variant_seed
from tcplab.chapters.lee.transfer import PATHS, path_model


def test_bdp_by_hand() -> None:
    # 100 Mb/s x 49 ms = 612,500 bytes = 408.3 packets of 1500 bytes
    assert BDP_PACKETS == 408


def test_each_variant_changes_only_what_it_names() -> None:
    shared = PATHS["shared"]
    for name, changes in VARIANTS:
        path = path_model("shared", **changes)
        differ = {f.name for f in fields(path) if getattr(path, f.name) != getattr(shared, f.name)}
        assert differ == set(changes), name


def test_variant_seeds_are_distinct() -> None:
    seeds = {
        variant_seed(0, v, n, r) for v in range(len(VARIANTS)) for n in (10, 50) for r in range(5)
    }
    assert len(seeds) == len(VARIANTS) * 2 * 5
