"""Small ONNX models of CenterFace's shape, the seeds of FuzzModel (Tests/Fuzz/fuzz.py).

Each is a valid model the engine plans (a 32×32 input, the four heads at 8×8), written the way
Tests/CenterFaceTests/ONNXWriter.swift writes its models: protobuf's wire format by hand, a few
channels a tensor, so every seed is a few kilobytes and within -max_len. Between them they hold
every operator, every fusion (ReLUs, residuals, batch normalisations, blocks with and without
expansion, the fused heads) and its unfused form, raw_data and float_data, typed and untyped
attributes. Uses only Python's standard library.

    python3 Tests/Fuzz/model_seeds.py DIR    # writes the seeds into DIR
"""
import pathlib
import struct
import sys


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def int_field(field, v):
    return key(field, 0) + varint(v)


def bytes_field(field, b):
    if isinstance(b, str):
        b = b.encode()
    return key(field, 2) + varint(len(b)) + b


def float_field(field, f):
    return key(field, 5) + struct.pack("<f", f)


class Graph:
    """Nodes and initializers, named in order; each value's channel count is tracked."""

    def __init__(self, float_data=False, typed=True):
        self.nodes, self.initializers, self.channels = [], [], {"input": 3}
        self.counter, self.rng = 0, 12345
        self.float_data = float_data  # alternate raw_data and float_data, starting with this
        self.typed = typed  # write AttributeProto.type (old writers leave it out)

    def name(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def random(self, scale):
        self.rng = (self.rng * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return ((self.rng >> 11) / float(1 << 53) * 2 - 1) * scale

    def tensor(self, dims, values):
        n = self.name("w")
        t = b"".join(int_field(1, d) for d in dims) + int_field(2, 1) + bytes_field(8, n)
        packed = struct.pack(f"<{len(values)}f", *values)
        t += bytes_field(4 if self.float_data else 9, packed)
        self.float_data = not self.float_data
        self.initializers.append(t)
        return n

    def weights(self, dims, scale):
        count = 1
        for d in dims:
            count *= d
        return self.tensor(dims, [self.random(scale) for _ in range(count)])

    def attribute(self, name, kind, value):
        a = bytes_field(1, name)
        if kind == "int":
            a += int_field(3, value) + (int_field(20, 2) if self.typed else b"")
        elif kind == "ints":
            a += b"".join(int_field(8, v) for v in value) + (int_field(20, 7) if self.typed else b"")
        elif kind == "float":
            a += float_field(2, value) + (int_field(20, 1) if self.typed else b"")
        else:
            a += bytes_field(4, value) + (int_field(20, 3) if self.typed else b"")
        return a

    def node(self, op, inputs, attributes, channels, output=None):
        out = output or self.name(op.lower())
        n = b"".join(bytes_field(1, i) for i in inputs) + bytes_field(2, out)
        n += bytes_field(3, f"{op}_{self.counter}") + bytes_field(4, op)
        for a in attributes:
            n += bytes_field(5, self.attribute(*a))
        self.nodes.append(n)
        self.channels[out] = channels
        return out

    def conv(self, x, n, k, stride=1, depthwise=False, bias=True):
        cg = 1 if depthwise else self.channels[x]
        inputs = [x, self.weights([n, cg, k, k], 1 / (cg * k * k) ** 0.5)]
        if bias:
            inputs.append(self.weights([n], 0.2))
        pad = (k - 1) // 2
        attributes = [("kernel_shape", "ints", [k, k]), ("strides", "ints", [stride, stride]),
                      ("pads", "ints", [pad] * 4), ("dilations", "ints", [1, 1])]
        if depthwise:
            attributes.append(("group", "int", n))
        return self.node("Conv", inputs, attributes, n)

    def transposed(self, x, n):
        w = self.weights([self.channels[x], n, 2, 2], 1 / self.channels[x] ** 0.5)
        return self.node("ConvTranspose", [x, w],
                         [("kernel_shape", "ints", [2, 2]), ("strides", "ints", [2, 2])], n)

    def batch_norm(self, x):
        c = self.channels[x]
        inputs = [x, self.weights([c], 1), self.weights([c], 0.5), self.weights([c], 0.5),
                  self.tensor([c], [abs(self.random(1)) + 0.5 for _ in range(c)])]
        return self.node("BatchNormalization", inputs,
                         [("epsilon", "float", 1e-3), ("momentum", "float", 0.9)], c)

    def relu(self, x):
        return self.node("Relu", [x], [], self.channels[x])

    def sigmoid(self, x):
        return self.node("Sigmoid", [x], [], self.channels[x])

    def add(self, a, b):
        return self.node("Add", [a, b], [], self.channels[a])

    def heads(self, x):
        return [self.sigmoid(self.conv(x, 1, 1)), self.conv(x, 2, 1), self.conv(x, 2, 1), self.conv(x, 10, 1)]

    def model(self, outputs, ir=4, opset=9, domain="", batch=1):
        g = b"".join(bytes_field(1, n) for n in self.nodes) + bytes_field(2, "seed")
        g += b"".join(bytes_field(5, t) for t in self.initializers)
        g += bytes_field(11, value_info("input", [batch, 3, 32, 32]))
        for o in outputs:
            g += bytes_field(12, value_info(o, [batch, self.channels[o], 8, 8]))
        opset_proto = bytes_field(1, domain) + int_field(2, opset)
        return (int_field(1, ir) + bytes_field(2, "photoedit-seeds") + bytes_field(8, opset_proto)
                + bytes_field(7, g))


def value_info(name, dims):
    shape = b"".join(
        bytes_field(1, int_field(1, d) if isinstance(d, int) else bytes_field(2, d)) for d in dims)
    tensor = int_field(1, 1) + bytes_field(2, shape)
    return bytes_field(1, name) + bytes_field(2, bytes_field(1, tensor))


def plain():
    """Two strided 3×3 convolutions with ReLUs, then the four heads (fused into one)."""
    g = Graph()
    x = g.relu(g.conv("input", 8, 3, stride=2))
    x = g.relu(g.conv(x, 8, 3, stride=2))
    return g.model(g.heads(x))


def blocks():
    """Blocks without and with expansion, strided and with a residual; a transposed
    convolution with a folded batch normalisation and a fused residual."""
    g = Graph(float_data=True)
    x = g.relu(g.conv("input", 8, 3, stride=2))
    x = g.relu(g.conv(x, 8, 3, depthwise=True))
    a = g.conv(x, 8, 1)  # block without expansion
    x = g.relu(g.conv(a, 16, 1))
    x = g.relu(g.conv(x, 16, 3, stride=2, depthwise=True))
    b = g.conv(x, 8, 1)  # block with stride 2, now 8×8
    x = g.relu(g.conv(b, 16, 1))
    x = g.relu(g.conv(x, 16, 3, depthwise=True))
    c = g.add(b, g.conv(x, 8, 1))  # block with a residual
    d = g.relu(g.conv(c, 8, 3, stride=2))  # 4×4
    e = g.relu(g.batch_norm(g.transposed(d, 8)))  # back to 8×8
    f = g.add(e, g.relu(g.conv(c, 8, 1)))
    return g.model(g.heads(f), opset=11, domain="ai.onnx", batch="N")


def unfused():
    """What cannot be fused: a batch normalisation after a ReLU, an addition of a value to
    itself, a ReLU of a sigmoid's input, heads of different inputs; untyped attributes and
    auto_pad NOTSET, group and spatial given explicitly."""
    g = Graph(typed=False)
    x = g.relu(g.conv("input", 8, 3, stride=2))
    x = g.batch_norm(x)
    y = g.node("Conv", [x, g.weights([8, 8, 3, 3], 0.1), ""],
               [("kernel_shape", "ints", [3, 3]), ("strides", "ints", [2, 2]), ("pads", "ints", [1] * 4),
                ("group", "int", 1), ("auto_pad", "string", "NOTSET")], 8)
    h = g.add(y, y)
    h2 = g.relu(h)
    heat = g.sigmoid(g.relu(g.conv(h, 1, 1)))
    outputs = [heat, g.conv(h2, 2, 1), g.conv(h, 2, 1, bias=False), g.conv(h2, 10, 1)]
    return g.model(outputs, ir=7, opset=13)


def seeds():
    """The seeds, as (name, bytes)."""
    return [("plain.onnx", plain()), ("blocks.onnx", blocks()), ("unfused.onnx", unfused())]


if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, data in seeds():
        (out / name).write_bytes(data)
        print(f"{out / name}: {len(data)} bytes")
