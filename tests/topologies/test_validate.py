"""The shared parameter checks (``topologies._validate``) and the machine models' use of them."""

import numpy as np
import pytest

from topologies import Flat, Hypercube, Mesh, ParameterError, TopologyError
from topologies._validate import check_bool, check_choice, check_int, check_real, shown


def test_numbers_of_every_numeric_type_pass_and_convert():
    assert check_real(np.float32(0.5), "x", low=0) == 0.5 and type(check_real(3, "x")) is float
    assert check_int(np.int64(4), "n", low=1) == 4 and type(check_int(np.int64(4), "n")) is int
    assert check_bool(np.bool_(True), "flag") is True
    assert check_real(float("inf"), "t", finite=False) == float("inf")


@pytest.mark.parametrize("call, message", [
    (lambda: check_real(float("nan"), "load", low=0, low_open=True), "load must be a finite number > 0, got nan"),
    (lambda: check_real(-float("inf"), "mu"), "mu must be a finite number, got -inf"),
    (lambda: check_real(1.5, "c", low=0, high=1), "c must be a finite number in [0, 1], got 1.5"),
    (lambda: check_real(0.0, "e", low=0, high=1, low_open=True), "e must be a finite number in (0, 1], got 0.0"),
    (lambda: check_real(True, "rate"), "rate must be a finite number, got True (bool)"),
    (lambda: check_real("2", "rate", high=3, high_open=True), "rate must be a finite number < 3, got '2' (str)"),
    (lambda: check_real(float("nan"), "t", finite=False), "t must be a number, got nan"),
    (lambda: check_int(2.0, "jobs", low=1), "jobs must be an integer >= 1, got 2.0"),
    (lambda: check_int(False, "seed", low=0), "seed must be an integer >= 0, got False (bool)"),
    (lambda: check_int(30, "dim", high=24), "dim must be an integer <= 24, got 30"),
    (lambda: check_bool(1, "rotate"), "rotate must be true or false, got 1"),
    (lambda: check_choice("up", "order", ("fifo", "lifo")), "order must be one of fifo, lifo; got 'up' (str)"),
    (lambda: check_choice([1], "order", {"fifo"}), "got [1] (list)"),
])
def test_messages_name_the_parameter_and_the_value(call, message):
    with pytest.raises(ParameterError) as info:
        call()
    assert message in str(info.value)


def test_shown_numbers_plainly_and_other_things_with_their_type():
    assert [shown(x) for x in (3, np.int32(3), 2.5, float("nan"), np.float64(-np.inf))] == ["3", "3", "2.5", "nan",
                                                                                             "-inf"]
    assert shown(None) == "None (NoneType)" and shown(True) == "True (bool)"


@pytest.mark.parametrize("build, fragment", [
    (lambda: Mesh(float("nan"), 4), "Mesh width must be an integer >= 1, got nan"),
    (lambda: Mesh(4, True), "Mesh height must be an integer >= 1, got True (bool)"),
    (lambda: Hypercube(-1), "Hypercube dim must be an integer >= 0, got -1"),
    (lambda: Hypercube(3.0), "got 3.0"),
    (lambda: Flat("8"), "Flat size must be an integer >= 1, got '8' (str)"),
    (lambda: Flat(float("inf")), "got inf"),
])
def test_machine_models_refuse_what_is_not_a_count(build, fragment):
    with pytest.raises(TopologyError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        build()
    assert issubclass(TopologyError, ParameterError) and issubclass(ParameterError, ValueError)
