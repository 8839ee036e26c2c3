"""A minimal module system: named parameters, child modules, state dicts,
and the LayerNorm layers that Dynamic Tanh replaces."""

import copy
import math

from dyt.tensor import check_positive_int, map_at_depth, map_vectors, shape_of


class Module:
    """Base class. Subclasses call ``super().__init__()``, register their
    parameters with ``register_parameter`` and their sub-modules with
    ``add_module``, and implement ``forward``; calling a module calls
    ``forward``."""

    def __init__(self):
        self._parameters = {}
        self._modules = {}

    def register_parameter(self, name, value):
        """Store a parameter (a float or a list of floats) under ``name``; it is
        then readable as ``self.<name>`` and appears in ``state_dict``."""
        self._parameters[name] = value

    def add_module(self, name, module):
        """Add (or replace, keeping its position) the child module ``name``."""
        if not isinstance(module, Module):
            raise TypeError(f"{name} is not a Module")
        self._modules[name] = module

    def named_children(self):
        """List of ``(name, child)`` pairs in insertion order."""
        return list(self._modules.items())

    def named_parameters(self, prefix=""):
        """List of ``(dotted name, value)`` for this module's parameters, then
        its children's, depth first."""
        out = [(prefix + n, v) for n, v in self._parameters.items()]
        for name, child in self._modules.items():
            out.extend(child.named_parameters(prefix + name + "."))
        return out

    def state_dict(self):
        """A deep copy of every parameter, keyed by dotted name."""
        return {n: copy.deepcopy(v) for n, v in self.named_parameters()}

    def load_state_dict(self, state):
        """Set parameters from a dict with exactly the keys of ``state_dict()``
        (values are copied). Raises ``KeyError`` for missing or unexpected keys."""
        own = dict(self.named_parameters())
        if set(state) != set(own):
            raise KeyError(f"keys differ: missing {sorted(set(own) - set(state))}, unexpected {sorted(set(state) - set(own))}")
        for name, value in state.items():
            *path, leaf = name.split(".")
            mod = self
            for p in path:
                mod = mod._modules[p]
            mod._parameters[leaf] = copy.deepcopy(value)

    def __getattr__(self, name):
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(name)

    def forward(self, x):
        raise NotImplementedError

    def __call__(self, x):
        return self.forward(x)


class Sequential(Module):
    """Children named "0", "1", ... applied in order."""

    def __init__(self, *modules):
        super().__init__()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)

    def forward(self, x):
        for _, m in self.named_children():
            x = m(x)
        return x


class Scale(Module):
    """Multiplies every number by a fixed factor (a stand-in for a linear layer)."""

    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        if isinstance(x, list):
            return [self.forward(v) for v in x]
        return x * self.factor


def _layer_norm_vector(v, weight, bias, eps):
    mu = math.fsum(v) / len(v)
    var = math.fsum((a - mu) ** 2 for a in v) / len(v)
    inv = 1.0 / math.sqrt(var + eps)
    return [(a - mu) * inv * w + b for a, w, b in zip(v, weight, bias)]


class LayerNorm(Module):
    """Layer normalisation over the last axis (channels last), with a
    per-channel weight (ones) and bias (zeros)."""

    def __init__(self, normalized_shape, eps=1e-6):
        super().__init__()
        check_positive_int("normalized_shape", normalized_shape)
        self.normalized_shape = normalized_shape
        self.eps = eps
        self.register_parameter("weight", [1.0] * normalized_shape)
        self.register_parameter("bias", [0.0] * normalized_shape)

    def forward(self, x):
        if shape_of(x)[-1:] != (self.normalized_shape,):
            raise ValueError("last axis does not match normalized_shape")
        return map_vectors(x, lambda v: _layer_norm_vector(v, self.weight, self.bias, self.eps))


class LayerNorm2d(LayerNorm):
    """Layer normalisation of a channels-first feature map ``(..., C, H, W)``
    over its C channels at every position (used in convolutional networks)."""

    def forward(self, x):
        s = shape_of(x)
        if len(s) < 3 or s[-3] != self.normalized_shape:
            raise ValueError("axis -3 does not match normalized_shape")
        c, h, w = s[-3:]

        def per_map(chw):
            out = [[[0.0] * w for _ in range(h)] for _ in range(c)]
            for i in range(h):
                for j in range(w):
                    col = _layer_norm_vector([chw[k][i][j] for k in range(c)], self.weight, self.bias, self.eps)
                    for k in range(c):
                        out[k][i][j] = col[k]
            return out

        if len(s) == 3:
            return per_map(x)
        return map_at_depth(x, len(s) - 3, lambda _i, sub: per_map(sub))
