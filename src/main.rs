//! The `ravenpost` command: see `ravenpost --help`.

fn main() -> std::process::ExitCode {
    ravenpost::cli::main()
}
