#!/usr/bin/env python3
"""Independent reference for dramalloc's importer: reads an ONNX or TFLite model the way the
public traces' README describes ("How the graphs were read") and prints the program JSON.

It shares no code with the Rust importer: ONNX shapes come from onnx's own shape inference
(data_prop=True) and, where that leaves a dimension open, from one onnxruntime run on zero
inputs; TFLite is read with the `tflite` package. Used to check the importer on models that
have no public trace (not by the test suite):

    pip install onnx onnxruntime numpy tflite
    python3 sim/data/reference_import.py MODEL [--input-shape NAME=1x3x224x224 ...] > NAME.json
    cargo run --release -p dramalloc-sim --example import_equivalence -- MODELS_DIR JSON_DIR
"""
import argparse
import collections
import json
import os

import numpy as np

ONNX_BYTES = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 14: 8,
              15: 16, 16: 2, 17: 1, 18: 1, 19: 1, 20: 1, 24: 1}
TFLITE_BYTES = {0: 4, 1: 2, 2: 4, 3: 1, 4: 8, 6: 1, 7: 2, 8: 8, 9: 1, 10: 8, 11: 16, 12: 8,
                15: 4, 16: 2, 18: 2}


def _static(dims):
    return dims is not None and all(d is not None for d in dims)


def onnx_program(path, input_shapes, name):
    import onnx
    from onnx import helper

    model = onnx.load(path)
    g = model.graph
    inits = {i.name for i in g.initializer}
    fixed = {}
    for inp in g.input:
        if inp.name in inits:
            continue
        dims = inp.type.tensor_type.shape.dim
        open_dims = any(not d.HasField('dim_value') or d.dim_value < 0 for d in dims)
        shape = input_shapes.get(inp.name) or [
            d.dim_value if d.HasField('dim_value') and d.dim_value >= 0 else 1 for d in dims]
        if open_dims or inp.name in input_shapes:
            fixed[inp.name] = list(shape)
        for d, v in zip(dims, shape):
            d.ClearField('dim_param')
            d.dim_value = v
    inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    info = {}
    for v in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
        tt = v.type.tensor_type
        if tt.HasField('shape'):
            info[v.name] = (tt.elem_type, [d.dim_value if d.HasField('dim_value') and d.dim_value >= 0
                                           else None for d in tt.shape.dim])
    for i in g.initializer:
        info[i.name] = (i.data_type, list(i.dims))
    names = [i.name for i in g.input if i.name not in inits] + [o for n in g.node for o in n.output if o]
    missing = [t for t in names if not _static(info.get(t, (0, None))[1])]
    if missing:
        import onnxruntime as ort
        run_model = onnx.load(path)
        for inp in run_model.graph.input:
            for d, v in zip(inp.type.tensor_type.shape.dim, fixed.get(inp.name, [])):
                d.ClearField('dim_param')
                d.dim_value = v
        declared = {o.name for o in run_model.graph.output}
        run_model.graph.output.extend(helper.ValueInfoProto(name=t) for t in missing if t not in declared)
        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(run_model.SerializeToString(), options, providers=['CPUExecutionProvider'])
        feeds = {i.name: np.zeros(info[i.name][1], dtype=helper.tensor_dtype_to_np_dtype(info[i.name][0]))
                 for i in session.get_inputs() if i.name not in inits}
        for t, v in zip(missing, session.run(missing, feeds)):
            info[t] = (helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))

    outputs = {o.name for o in g.output}
    readers = collections.Counter(i for n in g.node for i in n.input if i)
    const, alias, kept = set(inits), {}, []

    def resolve(t):
        while t in alias:
            t = alias[t]
        return t

    for n in g.node:
        ins = [resolve(i) for i in n.input if i]
        if all(i in const for i in ins) or n.op_type in ('Shape', 'Size'):
            const.update(o for o in n.output if o)
            continue
        rest_unread = all(not o or (readers[o] == 0 and o not in outputs) for o in n.output[1:])
        if n.op_type in ('Identity', 'Dropout') and n.output[0] not in outputs and rest_unread:
            alias[n.output[0]] = ins[0]
            continue
        kept.append((n, ins, [o for o in n.output if o]))
    graph_inputs = [i.name for i in g.input if i.name not in inits]
    return _listing(name, graph_inputs, [resolve(o.name) for o in g.output], const,
                    [(n.name, n.op_type, ins, outs) for n, ins, outs in kept],
                    lambda t: int(np.prod(info[t][1], dtype=np.int64)) * ONNX_BYTES[info[t][0]], fixed)


def tflite_program(path, name):
    import tflite
    from tflite.BuiltinOperator import BuiltinOperator

    names = {v: k for k, v in BuiltinOperator.__dict__.items() if not k.startswith('_')}
    model = tflite.Model.GetRootAsModel(open(path, 'rb').read(), 0)
    g = model.Subgraphs(0)

    def has_data(i):
        b = model.Buffers(g.Tensors(i).Buffer())
        return b is not None and (b.DataLength() > 0 or b.Size() > 0)

    def nbytes(i):
        t = g.Tensors(i)
        return (int(np.prod(t.ShapeAsNumpy())) if t.ShapeLength() else 1) * TFLITE_BYTES[t.Type()]

    const = {i for i in range(g.TensorsLength()) if has_data(i) or g.Tensors(i).IsVariable()}
    kept = []
    for k in range(g.OperatorsLength()):
        op = g.Operators(k)
        code = model.OperatorCodes(op.OpcodeIndex())
        c = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        op_name = code.CustomCode().decode() if c == 32 else names.get(c, f'BUILTIN_{c}')
        ins = [int(i) for i in op.InputsAsNumpy() if i >= 0] if op.InputsLength() else []
        outs = [int(i) for i in op.OutputsAsNumpy() if i >= 0] if op.OutputsLength() else []
        if ins and all(i in const for i in ins):
            const.update(outs)
            continue
        kept.append((f'{op_name.lower()}_{k}', op_name, ins, outs))
    tname = lambda i: g.Tensors(i).Name().decode()
    rename = lambda ts: [tname(i) for i in ts]
    return _listing(name, rename(g.InputsAsNumpy()), rename(g.OutputsAsNumpy()), {tname(i) for i in const},
                    [(n, o, rename(i), rename(x)) for n, o, i, x in kept],
                    {tname(i): nbytes(i) for i in range(g.TensorsLength())}.__getitem__, {})


def _listing(name, inputs, outputs, const, ops, size, fixed):
    order, seen = [], set()
    for t in inputs + [t for _, _, ins, outs in ops for t in ins + outs] + outputs:
        if t not in seen:
            seen.add(t)
            order.append(t)
    written = {t for _, _, _, outs in ops for t in outs}

    def kind(t):
        if t in inputs:
            return 'input'
        if t in const:
            return 'weight'
        return 'output' if t in outputs and t in written else 'intermediate'

    program = {'name': name}
    if fixed:
        program['input_shapes'] = fixed
    program['tensors'] = [{'name': t, 'bytes': size(t), 'kind': kind(t)} for t in order]
    program['ops'] = [{'name': n, 'op': o, 'inputs': i, 'outputs': x} for n, o, i, x in ops]
    return program


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('model')
    p.add_argument('--input-shape', action='append', default=[], metavar='NAME=DIMS')
    a = p.parse_args()
    shapes = {}
    for s in a.input_shape:
        k, v = s.rsplit('=', 1)
        shapes[k] = [int(d) for d in v.replace(',', 'x').split('x') if d]
    name, ext = os.path.splitext(os.path.basename(a.model))
    program = tflite_program(a.model, name) if ext == '.tflite' else onnx_program(a.model, shapes, name)
    print(json.dumps(program, indent=1))


if __name__ == '__main__':
    main()
