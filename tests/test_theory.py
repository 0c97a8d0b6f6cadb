import numpy as np
import pytest

from tcplab.theory import altman, loss


def test_sawtooth_is_three_quarters_for_tcp() -> None:
    assert altman.sawtooth_utilisation(0.5) == 0.75
    assert altman.sawtooth_period(0.5, 2.0, capacity=4.0) == 1.0


def test_theorem_1_reduces_to_the_sawtooth_for_one_connection() -> None:
    betas = np.linspace(0.05, 0.95, 19)
    for beta in betas:
        assert altman.parallel_throughput(1, beta) == pytest.approx(
            altman.sawtooth_utilisation(beta)
        )


def test_theorem_1_values_quoted_by_the_paper() -> None:
    # Altman et al. Sec. I: "3 sockets is sufficient to attain 90% ... N = 6 almost 95%"
    assert altman.parallel_throughput(3, 0.5) == pytest.approx(0.9)
    assert 0.94 < altman.parallel_throughput(6, 0.5) < 0.95


@pytest.mark.parametrize("beta", [0.0, 1.0, -0.1, 2.0])
def test_bad_beta_is_refused(beta: float) -> None:
    with pytest.raises(ValueError, match="beta="):
        altman.sawtooth_utilisation(beta)
    with pytest.raises(ValueError, match="beta="):
        altman.parallel_throughput(2, beta)


def test_bad_eta_capacity_and_n_are_refused() -> None:
    with pytest.raises(ValueError, match="eta=0"):
        altman.sawtooth_period(0.5, 0.0)
    with pytest.raises(ValueError, match="capacity=-1"):
        altman.sawtooth_period(0.5, 1.0, capacity=-1.0)
    with pytest.raises(ValueError, match="flows=0"):
        altman.parallel_throughput(0)


def test_mathis_square_root_law() -> None:
    # Mathis et al. 1997, eq. (3): BW = MSS/RTT * sqrt(3/2) / sqrt(p)
    assert loss.mathis_rate(0.01, 0.1) == pytest.approx(np.sqrt(1.5) / (0.1 * 0.1))
    rates = loss.mathis_rate(np.array([0.01, 0.04]), 0.2)
    assert rates[0] / rates[1] == pytest.approx(2.0)  # quadruple the loss, halve the rate
    assert loss.mathis_rate(0.01, 0.1, acked=2) == pytest.approx(
        loss.mathis_rate(0.01, 0.1) / np.sqrt(2)
    )


def test_padhye_tends_to_mathis_for_small_loss_and_is_below_it() -> None:
    for p in (1e-6, 1e-5):
        assert loss.padhye_rate(p, 0.1, 1.0) == pytest.approx(loss.mathis_rate(p, 0.1), rel=0.01)
    ps = np.array([0.001, 0.01, 0.05, 0.1, 0.3])
    assert np.all(loss.padhye_rate(ps, 0.1, 0.2) < loss.mathis_rate(ps, 0.1))
    assert np.all(np.diff(loss.padhye_rate(ps, 0.1, 0.2)) < 0)


def test_padhye_hand_value_and_window_cap() -> None:
    # p = 0.01, RTT 0.1 s, T0 = 1 s, b = 1: 1/(0.1 sqrt(0.02/3) + 1 * 0.3 sqrt(0.03/8) ...)
    p, rtt, t0 = 0.01, 0.1, 1.0
    denominator = rtt * np.sqrt(2 * p / 3) + t0 * 3 * np.sqrt(3 * p / 8) * p * (1 + 32 * p**2)
    assert loss.padhye_rate(p, rtt, t0) == pytest.approx(1 / denominator)
    assert loss.padhye_rate(1e-6, 0.1, 1.0, max_window=10) == pytest.approx(100.0)


def test_bad_loss_model_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match=r"p=0.0 is outside the allowed range \(0, 1\]"):
        loss.mathis_rate(0.0, 0.1)
    with pytest.raises(ValueError, match="p=1.5"):
        loss.padhye_rate([0.1, 1.5], 0.1, 1.0)
    with pytest.raises(ValueError, match="rtt=0"):
        loss.mathis_rate(0.1, 0)
    with pytest.raises(ValueError, match="rto=-1"):
        loss.padhye_rate(0.1, 0.1, -1.0)
    with pytest.raises(ValueError, match="acked=0.5"):
        loss.padhye_rate(0.1, 0.1, 1.0, acked=0.5)
    with pytest.raises(ValueError, match="max_window=0"):
        loss.padhye_rate(0.1, 0.1, 1.0, max_window=0)
