pub mod blob;
