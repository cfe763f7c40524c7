//! The `ravenpost` command: see `ravenpost --help`.

fn main() -> std::process::ExitCode {
    bound_libgit2_memory();
    ravenpost::cli::main()
}

/// libgit2 maps pack files in windows of up to 1 GiB, 8 GiB in all (its 64-bit defaults),
/// and keeps up to 256 MiB of parsed objects: a command that reads many objects of a large
/// archive (a `verify` reads every commit's header) would hold hundreds of MiB of pack
/// pages. Windows of 16 MiB, 64 MiB mapped at most and a 32 MiB object cache keep each
/// command's memory bounded, whatever the size of the archive.
fn bound_libgit2_memory() {
    // SAFETY: set before any other thread exists and before any repository is opened, as
    // libgit2 requires of its global options.
    unsafe {
        let _ = git2::opts::set_mwindow_size(16 << 20);
        let _ = git2::opts::set_mwindow_mapped_limit(64 << 20);
        let _ = git2::opts::set_cache_max_size(32 << 20);
    }
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
