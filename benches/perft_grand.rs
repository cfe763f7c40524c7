//! Perft speed for Grand Chess: nodes per second from the start position.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn perft_grand(c: &mut Criterion) {
    let v = ravenpost::variants::by_name("grand", &[]).unwrap();
    let start = v.start_position();
    let mut g = c.benchmark_group("perft_grand");
    g.sample_size(10);
    // perft 4 = 15,921,643 leaf nodes (bulk-counted at the last ply).
    g.throughput(Throughput::Elements(15_921_643));
    g.bench_function("start_depth_4", |b| b.iter(|| assert_eq!(v.perft(&start, 4), 15_921_643)));
    g.finish();
}

criterion_group!(benches, perft_grand);
criterion_main!(benches);
