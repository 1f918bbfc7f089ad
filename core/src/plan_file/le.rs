//! Little-endian integers of alignment 1, the plan file's field types.
//! Uses: bytemuck; used by: header, record, sim.
//!
//! Little-endian integers of alignment 1 for the plan file: a field reads the same on any
//! host, and a blob can be read in place from any address (an `include_bytes!` array, a
//! mapped file, a packet buffer) because no record needs more than byte alignment.

use bytemuck::{Pod, Zeroable};

macro_rules! le_int {
    ($name:ident, $int:ty, $n:literal) => {
        #[doc = concat!("A little-endian `", stringify!($int), "` stored as ", stringify!($n), " bytes (alignment 1).")]
        #[repr(transparent)]
        #[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
        pub struct $name([u8; $n]);

        impl $name {
            /// Encodes `value` little-endian.
            pub const fn new(value: $int) -> Self {
                Self(value.to_le_bytes())
            }

            /// The value, decoded from little-endian (a plain load on little-endian targets).
            pub const fn get(self) -> $int {
                <$int>::from_le_bytes(self.0)
            }
        }

        impl From<$int> for $name {
            fn from(value: $int) -> Self {
                Self::new(value)
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Debug::fmt(&self.get(), f)
            }
        }

        #[cfg(feature = "defmt")]
        impl defmt::Format for $name {
            fn format(&self, f: defmt::Formatter<'_>) {
                defmt::write!(f, "{}", self.get())
            }
        }
    };
}

le_int!(U16Le, u16, 2);
le_int!(U32Le, u32, 4);
le_int!(U64Le, u64, 8);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_is_little_endian() {
        let v = U32Le::new(0x0403_0201);
        assert_eq!(bytemuck::bytes_of(&v), &[1, 2, 3, 4]);
        assert_eq!(v.get(), 0x0403_0201);
        assert_eq!(U64Le::new(u64::MAX - 1).get(), u64::MAX - 1);
        assert_eq!(core::mem::align_of::<U64Le>(), 1);
    }
}
