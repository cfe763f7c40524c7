//! The `ravenpost` command: see `ravenpost --help`.

fn main() -> std::process::ExitCode {
    ravenpost::cli::main()
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
