//! Perft speed for Gygax Chess: nodes per second from the start position.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn perft_gygax(c: &mut Criterion) {
    let v = ravenpost::variants::by_name("gygax", &[]).unwrap();
    let start = v.start_position();
    let mut g = c.benchmark_group("perft_gygax");
    g.sample_size(10);
    // perft 3 = 735,480 leaf nodes (bulk-counted at the last ply).
    g.throughput(Throughput::Elements(735_480));
    g.bench_function("start_depth_3", |b| b.iter(|| assert_eq!(v.perft(&start, 3), 735_480)));
    g.finish();
}

criterion_group!(benches, perft_gygax);
criterion_main!(benches);
