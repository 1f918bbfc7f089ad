//! Outer-scope tensors that a node's subgraphs read (`If`, `Loop`, `Scan` captures).
//! Uses: dramalloc-model-formats (onnx); used by: onnx.
//!
//! An ONNX node with graph attributes (`If`'s branches, `Loop`'s and `Scan`'s body) runs
//! subgraphs that may read tensors of the enclosing graph by name, without listing them as the
//! node's inputs. For the planner they are inputs all the same: the node reads them while it
//! runs, so they must stay live until then. [`captured`] finds them.
//!
//! Scoping follows the ONNX IR: inside a subgraph its inputs, its initializers (dense and
//! sparse) and the outputs of its nodes (once written) are local and hide an outer tensor of
//! the same name; a nested subgraph sees the locals of every subgraph around it. A name that
//! no enclosing subgraph defines is a read of the outer graph.
//!
//! O(total nodes and edges of the subgraphs); the recursion is as deep as the subgraphs are
//! nested (bounded by the protobuf decoder's recursion limit).

use std::collections::HashSet;

use dramalloc_model_formats::onnx::{GraphProto, NodeProto};

/// The tensors `node`'s subgraphs (its graph attributes, nested subgraphs included) read
/// from the enclosing graph: names no subgraph around the read defines, each once, in the
/// order of first use (attributes in file order, a subgraph's nodes in order, then its
/// outputs), leaving out the node's own inputs. Empty for a node without graph attributes.
///
/// ```
/// use dramalloc_model_formats::onnx::{attribute_proto, AttributeProto, GraphProto, NodeProto};
/// use dramalloc_sim::input::onnx::captures::captured;
/// let relu = NodeProto {
///     op_type: Some("Relu".into()),
///     input: vec!["a".into()],
///     output: vec!["t".into()],
///     ..Default::default()
/// };
/// let branch = GraphProto { node: vec![relu], ..Default::default() };
/// let if_node = NodeProto {
///     op_type: Some("If".into()),
///     input: vec!["cond".into()],
///     attribute: vec![AttributeProto {
///         name: Some("then_branch".into()),
///         r#type: Some(attribute_proto::AttributeType::Graph as i32),
///         g: Some(branch),
///         ..Default::default()
///     }],
///     ..Default::default()
/// };
/// assert_eq!(captured(&if_node), ["a"]);
/// ```
#[must_use]
pub fn captured(node: &NodeProto) -> Vec<&str> {
    let mut walk =
        Walk { seen: node.input.iter().map(String::as_str).collect(), found: Vec::new(), scopes: Vec::new() };
    for g in subgraphs(node) {
        walk.graph(g);
    }
    walk.found
}

/// The graph attributes of `node` (`g` and `graphs`), in attribute order.
fn subgraphs(node: &NodeProto) -> impl Iterator<Item = &GraphProto> {
    node.attribute.iter().flat_map(|a| a.g.iter().chain(&a.graphs))
}

/// The state of one [`captured`] walk.
struct Walk<'a> {
    /// Names already found or among the node's own inputs.
    seen: HashSet<&'a str>,
    /// The outer tensors read, in first-use order.
    found: Vec<&'a str>,
    /// The names each enclosing subgraph defines so far, outermost first.
    scopes: Vec<HashSet<&'a str>>,
}

impl<'a> Walk<'a> {
    /// Records a read of `name`: an outer tensor unless some enclosing subgraph defines it.
    fn read(&mut self, name: &'a str) {
        if name.is_empty() || self.scopes.iter().any(|s| s.contains(name)) {
            return;
        }
        if self.seen.insert(name) {
            self.found.push(name);
        }
    }

    /// Walks subgraph `g` in a new scope.
    fn graph(&mut self, g: &'a GraphProto) {
        let mut local: HashSet<&'a str> = g.input.iter().filter_map(|v| v.name.as_deref()).collect();
        local.extend(g.initializer.iter().filter_map(|t| t.name.as_deref()));
        local.extend(g.sparse_initializer.iter().filter_map(|s| s.values.as_ref()?.name.as_deref()));
        self.scopes.push(local);
        for n in &g.node {
            for i in &n.input {
                self.read(i);
            }
            for sub in subgraphs(n) {
                self.graph(sub);
            }
            if let Some(scope) = self.scopes.last_mut() {
                scope.extend(n.output.iter().map(String::as_str).filter(|o| !o.is_empty()));
            }
        }
        for o in &g.output {
            self.read(o.name.as_deref().unwrap_or(""));
        }
        self.scopes.pop();
    }
}

#[cfg(test)]
mod tests {
    use dramalloc_model_formats::onnx::{AttributeProto, TensorProto, ValueInfoProto};

    use super::*;

    fn node(op: &str, inputs: &[&str], outputs: &[&str], graphs: Vec<GraphProto>) -> NodeProto {
        NodeProto {
            op_type: Some(op.into()),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: outputs.iter().map(|s| s.to_string()).collect(),
            attribute: graphs
                .into_iter()
                .map(|g| AttributeProto { name: Some("body".into()), g: Some(g), ..Default::default() })
                .collect(),
            ..Default::default()
        }
    }

    fn vi(name: &str) -> ValueInfoProto {
        ValueInfoProto { name: Some(name.into()), ..Default::default() }
    }

    fn graph(inputs: &[&str], init: &[&str], nodes: Vec<NodeProto>, outputs: &[&str]) -> GraphProto {
        GraphProto {
            input: inputs.iter().map(|n| vi(n)).collect(),
            initializer: init
                .iter()
                .map(|n| TensorProto { name: Some(n.to_string()), ..Default::default() })
                .collect(),
            node: nodes,
            output: outputs.iter().map(|n| vi(n)).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn locals_hide_outer_names_and_reads_are_listed_once_in_order() {
        // body(i, acc): w is a local initializer; t is written before it is read; `b` is
        // the node's own input; `c`, `a` are outer reads; a nested graph reads `t` (local to
        // the body around it), `acc` (the body's input) and `d` (outer); `e` is an output
        // passed straight through; `t2` is read before the body writes it, so it is outer.
        let inner = graph(&[], &[], vec![node("Add", &["t", "acc", "d"], &["u"], vec![])], &["u"]);
        let body = graph(
            &["i", "acc"],
            &["w"],
            vec![
                node("Mul", &["c", "w", "a", "b", ""], &["t"], vec![]),
                node("Add", &["t2", "a", "c"], &["s"], vec![]),
                node("If", &["t"], &["v"], vec![inner]),
                node("Relu", &["v"], &["t2"], vec![]),
            ],
            &["s", "e"],
        );
        let loop_node = node("Loop", &["n", "", "b"], &["lo"], vec![body]);
        assert_eq!(captured(&loop_node), ["c", "a", "t2", "d", "e"]);
    }

    #[test]
    fn every_graph_attribute_is_walked_and_a_node_without_one_captures_nothing() {
        let then = graph(&[], &[], vec![node("Relu", &["a"], &["x"], vec![])], &["x"]);
        let other = graph(&[], &[], vec![node("Neg", &["b"], &["y"], vec![])], &["y"]);
        let mut n = node("If", &["cond"], &["o"], vec![then]);
        n.attribute.push(AttributeProto { graphs: vec![other], ..Default::default() });
        assert_eq!(captured(&n), ["a", "b"]);
        assert!(captured(&node("Relu", &["a"], &["b"], vec![])).is_empty());
    }
}
