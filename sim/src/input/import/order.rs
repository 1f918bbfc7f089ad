//! Definition order of a model graph: cycles, unsorted nodes, undefined and twice-written tensors.
//! Uses: graph, error; used by: mod.rs, onnx, to_program.
//!
//! Definition order of a [`ModelGraph`]: every tensor a node reads is a constant, a graph
//! input or written by an earlier node, and no tensor is written twice.
//!
//! A read of a tensor that a later node writes is either a cycle ([`ImportError::Cycle`],
//! when that writer depends on the reader) or a file listed out of topological order
//! ([`ImportError::NotTopological`]); both name the node, the tensor and the writer. O(N + E)
//! for the check; the cycle test after a failed check is one more O(N + E) walk.

use super::error::ImportError;
use super::graph::ModelGraph;

/// Who defines a tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Definer {
    Nobody,
    Loaded,
    Node(usize),
}

/// Checks the definition order of `g` (see the module docs); `file` names the model.
///
/// # Errors
/// [`ImportError::Redefined`], [`ImportError::UndefinedTensor`], [`ImportError::Cycle`] or
/// [`ImportError::NotTopological`], naming the node and the tensor;
/// [`ImportError::UndefinedOutput`] for a graph output that nothing defines.
pub fn check_order(g: &ModelGraph, file: &str) -> Result<(), ImportError> {
    let mut def = vec![Definer::Nobody; g.tensors.len()];
    for (i, t) in g.tensors.iter().enumerate() {
        if t.constant {
            def[i] = Definer::Loaded;
        }
    }
    for &i in &g.inputs {
        def[i as usize] = Definer::Loaded;
    }
    let name = |t: u32| g.tensors[t as usize].name.clone();
    for (k, n) in g.nodes.iter().enumerate() {
        for &o in &n.node.outputs {
            let first = match def[o as usize] {
                Definer::Nobody => {
                    def[o as usize] = Definer::Node(k);
                    continue;
                }
                Definer::Loaded if g.inputs.contains(&o) => "the graph inputs".to_owned(),
                Definer::Loaded => "the constants".to_owned(),
                Definer::Node(j) => format!("node `{}`", g.node_label(j)),
            };
            return Err(ImportError::Redefined {
                file: file.to_owned(),
                tensor: name(o),
                first,
                second: g.node_label(k),
            });
        }
    }
    for (k, n) in g.nodes.iter().enumerate() {
        for &t in &n.node.inputs {
            match def[t as usize] {
                Definer::Loaded => {}
                Definer::Node(j) if j < k => {}
                Definer::Nobody => {
                    return Err(ImportError::UndefinedTensor {
                        file: file.to_owned(),
                        node: g.node_label(k),
                        tensor: name(t),
                    })
                }
                Definer::Node(j) => {
                    let (node, tensor, producer) = (g.node_label(k), name(t), g.node_label(j));
                    return Err(if depends_on(g, &def, j, k) {
                        ImportError::Cycle { file: file.to_owned(), node, tensor, producer }
                    } else {
                        ImportError::NotTopological { file: file.to_owned(), node, tensor, producer }
                    });
                }
            }
        }
    }
    if let Some(&o) = g.outputs.iter().find(|&&o| def[o as usize] == Definer::Nobody) {
        return Err(ImportError::UndefinedOutput { file: file.to_owned(), tensor: name(o) });
    }
    Ok(())
}

/// Whether node `from` reads, directly or through other nodes, a tensor that node `target`
/// writes (an explicit stack, so deep graphs cannot overflow the call stack).
fn depends_on(g: &ModelGraph, def: &[Definer], from: usize, target: usize) -> bool {
    let mut seen = vec![false; g.nodes.len()];
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(n) = stack.pop() {
        if n == target {
            return true;
        }
        for &t in &g.nodes[n].node.inputs {
            if let Definer::Node(p) = def[t as usize] {
                if !seen[p] {
                    seen[p] = true;
                    stack.push(p);
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::graph::{GraphNode, GraphTensor, NodeRole};
    use super::*;
    use crate::input::Op;

    fn graph(nodes: &[(&str, &[u32], &[u32])], tensors: usize) -> ModelGraph {
        ModelGraph {
            name: "g".into(),
            tensors: (0..tensors)
                .map(|i| GraphTensor { name: format!("t{i}"), bytes: Ok(4), constant: false })
                .collect(),
            nodes: nodes
                .iter()
                .map(|&(name, i, o)| GraphNode {
                    node: Op {
                        name: name.into(),
                        op: "Relu".into(),
                        inputs: i.to_vec(),
                        outputs: o.to_vec(),
                        collective: false,
                    },
                    role: NodeRole::Compute,
                })
                .collect(),
            inputs: vec![0],
            outputs: vec![],
            input_shapes: vec![],
        }
    }

    #[test]
    fn accepts_a_chain() {
        assert!(check_order(&graph(&[("a", &[0], &[1]), ("b", &[1], &[2])], 3), "m").is_ok());
    }

    #[test]
    fn names_the_cycle() {
        // a reads t2 (written by b), b reads t1 (written by a).
        let e = check_order(&graph(&[("a", &[0, 2], &[1]), ("b", &[1], &[2])], 3), "m").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m: the graph has a cycle: node `a` reads tensor `t2`, written by node `b`, which depends on `a`"
        );
    }

    #[test]
    fn tells_unsorted_from_cyclic() {
        let e = check_order(&graph(&[("a", &[2], &[1]), ("b", &[0], &[2])], 3), "m").unwrap_err();
        assert!(
            matches!(e, ImportError::NotTopological { ref node, ref producer, .. } if node == "a" && producer == "b")
        );
    }

    #[test]
    fn names_undefined_and_redefined_tensors() {
        let e = check_order(&graph(&[("a", &[3], &[1])], 4), "m").unwrap_err();
        assert_eq!(e.to_string(), "m: node `a` reads tensor `t3`, which nothing defines");
        let e = check_order(&graph(&[("a", &[0], &[1]), ("b", &[0], &[1])], 2), "m").unwrap_err();
        assert_eq!(e.to_string(), "m: tensor `t1` is written by node `b` but already defined by node `a`");
        let e = check_order(&graph(&[("a", &[0], &[0])], 1), "m").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m: tensor `t0` is written by node `a` but already defined by the graph inputs"
        );
    }
}
