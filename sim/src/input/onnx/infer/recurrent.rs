//! Shape rules of LSTM, GRU and RNN.
//! Uses: node; used by: infer.
//!
//! Recurrent layers: `LSTM` (outputs `Y`, `Y_h`, `Y_c`), `GRU` and `RNN` (`Y`, `Y_h`), with
//! `hidden_size`, `direction` (`bidirectional` doubles the direction dimension) and `layout`
//! (0: `[seq, batch, ...]`, 1: `[batch, seq, ...]`).

use super::node::{dim, Info, Node, R};

/// `LSTM` (`cell_state`: a third output `Y_c` like `Y_h`), `GRU`, `RNN`.
pub fn recurrent(n: &Node, cell_state: bool) -> R<Vec<Info>> {
    let x = n.input(0)?;
    let &[a, b, _] = x.shape.as_slice() else {
        return Err(format!("input 0 has shape {:?}, expected rank 3", x.shape));
    };
    let layout = n.int("layout", 0);
    let (seq, batch) = if layout == 0 { (a, b) } else { (b, a) };
    let hidden = match n.attr("hidden_size").and_then(|h| h.i) {
        Some(h) => dim(h, "attribute `hidden_size`")?,
        // Not given: the recurrence weight R is [directions, k·hidden, hidden].
        None => *n.shape(2)?.get(2).ok_or("attribute `hidden_size` is missing and R has rank < 3")?,
    };
    let dirs = match n.string("direction").as_deref() {
        None | Some("forward" | "reverse") => 1,
        Some("bidirectional") => 2,
        Some(other) => return Err(format!("attribute `direction` is `{other}`")),
    };
    let (y, state) = if layout == 0 {
        (vec![seq, dirs, batch, hidden], vec![dirs, batch, hidden])
    } else {
        (vec![batch, seq, dirs, hidden], vec![batch, dirs, hidden])
    };
    let mut out = vec![Info::new(x.dtype, y), Info::new(x.dtype, state.clone())];
    if cell_state {
        out.push(Info::new(x.dtype, state));
    }
    Ok(out)
}
