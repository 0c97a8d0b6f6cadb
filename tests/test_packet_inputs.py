"""Bad input to the packet model fails early with a ValueError naming the parameter."""

from __future__ import annotations

import pytest

from tcplab.packet import RED, DropTail, Link, TcpConfig, ThresholdDropper, make_queue, run_dumbbell


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"flows": 0}, "flows"),
        ({"flows": 2.5}, "flows"),
        ({"rate_mbps": 0}, "rate_mbps"),
        ({"rate_mbps": -1}, "rate_mbps"),
        ({"access_mbps": 0}, "access_mbps"),
        ({"delay_ms": -1}, "delay_ms"),
        ({"access_delay_ms": -5}, "access_delay_ms"),
        ({"access_delay_ms": [1.0, 2.0, 3.0]}, "access_delay_ms"),
        ({"access_jitter_ms": -1}, "access_jitter_ms"),
        ({"buffer": 0}, "buffer"),
        ({"buffer": -3}, "buffer"),
        ({"duration": 0}, "duration"),
        ({"warmup": 5.0, "duration": 5.0}, "warmup"),
        ({"warmup": -1}, "warmup"),
        ({"queue": "fifo"}, "queue"),
        ({"tcp": "cubic"}, "tcp"),
        ({"packet_bytes": 0}, "packet_bytes"),
        ({"seed": -1}, "seed"),
        ({"delayed_ack_ms": 0}, "delayed_ack_ms"),
        ({"overhead_ms": -1}, "overhead_ms"),
        ({"tcp": "aimd", "a": 0}, "a"),
        ({"tcp": "aimd", "a": -1}, "a"),
        ({"tcp": "aimd", "beta": 0}, "beta"),
        ({"tcp": "aimd", "beta": 1}, "beta"),
        ({"tcp": "aimd", "beta": 1.5}, "beta"),
        ({"queue": "red", "queue_options": {"min_th": 8, "max_th": 5}}, "max_th"),
        ({"queue": "red", "queue_options": {"max_p": 0}}, "max_p"),
        ({"queue": "red", "queue_options": {"max_p": 1.5}}, "max_p"),
        ({"queue": "droptail", "queue_options": {"max_p": 0.1}}, "droptail"),
    ],
)
def test_run_dumbbell_rejects(kwargs, name):
    args = {"flows": 2, "buffer": 10, "duration": 1.0, "warmup": 0.5, **kwargs}
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        run_dumbbell(**args)


def test_messages_name_value_and_range():
    with pytest.raises(ValueError, match=r"rate_mbps=0 is outside the allowed range \(0, inf\)"):
        run_dumbbell(1, rate_mbps=0)
    with pytest.raises(ValueError, match=r"beta=1\.0 is outside the allowed range \(0, 1\)"):
        TcpConfig(variant="aimd", beta=1.0)


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda: RED(10, min_th=6, max_th=4), "max_th"),
        (lambda: RED(10, min_th=0), "min_th"),
        (lambda: RED(10, max_th=11), "max_th"),
        (lambda: RED(10, max_p=0.0), "max_p"),
        (lambda: RED(10, max_p=1.01), "max_p"),
        (lambda: RED(10, w_q=0), "w_q"),
        (lambda: DropTail(0), "buffer"),
        (lambda: ThresholdDropper(10, threshold=0), "threshold"),
        (lambda: ThresholdDropper(10, hold=-1), "hold"),
        (lambda: make_queue("codel", 10), "queue"),
        (lambda: TcpConfig(a=0), "a"),
        (lambda: TcpConfig(beta=0), "beta"),
        (lambda: TcpConfig(granularity=0), "granularity"),
        (lambda: TcpConfig(max_window=0), "max_window"),
        (lambda: Link(None, 0.0, 0.01), "rate"),
        (lambda: Link(None, 1e6, -0.01), "delay"),
        (lambda: Link(None, 1e6, 0.01, jitter=-1.0), "jitter"),
        (lambda: Link(None, 1e6, 0.01, jitter=1.0), "jitter"),
    ],
)
def test_components_reject(build, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        build()


def test_red_max_p_of_one_is_allowed():
    assert RED(10, max_p=1.0).max_p == 1.0
