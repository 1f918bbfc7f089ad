//! The simulated program: one [`CoreProgram`] per logical core, in the core planner's program model.
//! Uses: input, dramalloc-core; used by: exec, planning, report, run, tensor_parallel, verify.
//!
//! The simulated program: one [`CoreProgram`] per logical core, in the core planner's
//! program model (locations, instructions, flat operands) plus names for reports.
//!
//! Built from a program JSON ([`SimModel::core_from_program`], [`SimModel::replicated`]): every core runs its own copy;
//! inputs, weights and outputs are pre-placed by [`crate::input::pack_preplaced`]
//! (packed from 0, 4096-aligned, explicit addresses kept); intermediates are the
//! planner's candidates; op inputs are uses and op outputs defs, in file order.

use dramalloc_core::liveness::program::{
    Access, Function, Instruction, Location, MemoryType, Operand, UsageClass,
};
use dramalloc_core::multicore::Module;

use crate::input::{pack_preplaced, InputError, Program, TensorKind};

/// One core's program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoreProgram {
    /// Tensor names (twins on different cores share a name).
    pub names: Vec<String>,
    /// Tensor kinds, parallel to `names`.
    pub kinds: Vec<TensorKind>,
    /// Locations in the planner's model, parallel to `names`.
    pub locations: Vec<Location>,
    /// Instructions in execution order (flat index = position).
    pub instructions: Vec<Instruction>,
    /// Flat operand array.
    pub operands: Vec<Operand>,
    /// Op names, parallel to `instructions`.
    pub op_names: Vec<String>,
    /// Op types, parallel to `instructions`.
    pub op_types: Vec<String>,
}

impl CoreProgram {
    /// Appends a tensor; returns its index.
    pub fn add_tensor(&mut self, name: String, kind: TensorKind, location: Location) -> u32 {
        self.names.push(name);
        self.kinds.push(kind);
        self.locations.push(location);
        (self.locations.len() - 1) as u32
    }

    /// Appends an instruction reading `uses` and writing `defs`.
    pub fn add_op(&mut self, name: String, op: String, uses: &[u32], defs: &[u32], collective: bool) {
        let first = self.operands.len() as u32;
        self.operands.extend(uses.iter().map(|&u| Operand::use_(u)));
        self.operands.extend(defs.iter().map(|&d| Operand::def(d)));
        self.instructions.push(Instruction { first, count: (uses.len() + defs.len()) as u32, collective });
        self.op_names.push(name);
        self.op_types.push(op);
    }

    /// The operands of instruction `i`.
    pub fn operands_of(&self, i: usize) -> &[Operand] {
        let ins = self.instructions[i];
        &self.operands[ins.first as usize..(ins.first + ins.count) as usize]
    }

    /// The accesses recomputed from the instructions, per location: the first and last
    /// instruction accessing it (`None`: none), and whether a collective op defines it (with
    /// an intermediate's shared flag, the program's shared set). The one rule of `verify`'s
    /// plan.csv check and `check-plan`'s program check. O(operands).
    pub fn accesses(&self) -> (Vec<Option<(u32, u32)>>, Vec<bool>) {
        let mut acc = vec![None::<(u32, u32)>; self.names.len()];
        let mut collective_def = vec![false; self.names.len()];
        for i in 0..self.instructions.len() {
            let at = i as u32;
            for op in self.operands_of(i) {
                let l = op.location as usize;
                acc[l] = Some(acc[l].map_or((at, at), |(a, b)| (a.min(at), b.max(at))));
                collective_def[l] |= self.instructions[i].collective && op.access == Access::Def;
            }
        }
        (acc, collective_def)
    }

    /// Whether location `l` is in the program's shared set, as the planner marks it
    /// (`dramalloc_core::multicore::marking`): an intermediate flagged shared or defined by a
    /// collective op (`collective_def` of [`CoreProgram::accesses`]).
    pub fn is_shared(&self, l: usize, collective_def: &[bool]) -> bool {
        self.locations[l].is_candidate() && (self.locations[l].shared || collective_def[l])
    }

    /// Borrowed view in the planner's model.
    pub fn function(&self) -> Function<'_> {
        Function { locations: &self.locations, instructions: &self.instructions, operands: &self.operands }
    }
}

/// An N-core program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimModel {
    /// Model name.
    pub name: String,
    /// One program per core.
    pub cores: Vec<CoreProgram>,
}

impl SimModel {
    /// One core's program from a parsed program JSON (see the module docs).
    ///
    /// # Errors
    /// The pre-placement errors of [`pack_preplaced`].
    pub fn core_from_program(p: &Program) -> Result<CoreProgram, InputError> {
        let addr = pack_preplaced(p, crate::input::PAGE)?;
        let mut c = CoreProgram::default();
        for (t, a) in p.tensors.iter().zip(addr) {
            let usage = match t.kind {
                TensorKind::Input => UsageClass::Input,
                TensorKind::Output => UsageClass::Output,
                TensorKind::Weight => UsageClass::Weight,
                TensorKind::Intermediate => UsageClass::Spill,
            };
            let loc =
                Location { bytes: t.bytes, memory: MemoryType::Dram, usage, address: a, shared: t.shared };
            c.add_tensor(t.name.clone(), t.kind, loc);
        }
        for op in &p.ops {
            c.add_op(op.name.clone(), op.op.clone(), &op.inputs, &op.outputs, op.collective);
        }
        Ok(c)
    }

    /// `cores` identical copies of the program (`--split none`).
    ///
    /// # Errors
    /// As [`SimModel::core_from_program`].
    pub fn replicated(p: &Program, cores: usize) -> Result<SimModel, InputError> {
        let c = Self::core_from_program(p)?;
        Ok(SimModel { name: p.name.clone(), cores: vec![c; cores.max(1)] })
    }

    /// Name slices for [`SimModel::modules`].
    pub fn name_refs(&self) -> Vec<Vec<&str>> {
        self.cores.iter().map(|c| c.names.iter().map(String::as_str).collect()).collect()
    }

    /// The planner's modules (one per core) over `names` from [`SimModel::name_refs`].
    pub fn modules<'a>(&'a self, names: &'a [Vec<&'a str>]) -> Vec<Module<'a>> {
        self.cores.iter().zip(names).map(|(c, n)| Module { function: c.function(), names: n }).collect()
    }

    /// Total number of tensors over all cores.
    pub fn tensor_count(&self) -> usize {
        self.cores.iter().map(|c| c.locations.len()).sum()
    }
}
