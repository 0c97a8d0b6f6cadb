import numpy as np
import pytest

from tcplab import theory


def test_sawtooth_is_three_quarters_for_tcp() -> None:
    assert theory.sawtooth_utilisation(0.5) == 0.75
    assert theory.sawtooth_period(0.5, 2.0, capacity=4.0) == 1.0


def test_theorem_1_reduces_to_the_sawtooth_for_one_connection() -> None:
    betas = np.linspace(0.05, 0.95, 19)
    for beta in betas:
        assert theory.parallel_throughput(1, beta) == pytest.approx(
            theory.sawtooth_utilisation(beta)
        )


def test_theorem_1_values_quoted_by_the_paper() -> None:
    # Altman et al. Sec. I: "3 sockets is sufficient to attain 90% ... N = 6 almost 95%"
    assert theory.parallel_throughput(3, 0.5) == pytest.approx(0.9)
    assert 0.94 < theory.parallel_throughput(6, 0.5) < 0.95


@pytest.mark.parametrize("beta", [0.0, 1.0, -0.1, 2.0])
def test_bad_beta_is_refused(beta: float) -> None:
    with pytest.raises(ValueError, match="beta="):
        theory.sawtooth_utilisation(beta)
    with pytest.raises(ValueError, match="beta="):
        theory.parallel_throughput(2, beta)


def test_bad_eta_capacity_and_n_are_refused() -> None:
    with pytest.raises(ValueError, match="eta=0"):
        theory.sawtooth_period(0.5, 0.0)
    with pytest.raises(ValueError, match="capacity=-1"):
        theory.sawtooth_period(0.5, 1.0, capacity=-1.0)
    with pytest.raises(ValueError, match="n_flows=0"):
        theory.parallel_throughput(0)
