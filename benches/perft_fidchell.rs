//! Perft speed for Gygax's Fidchell: nodes per second from the start of play (the
//! `default` arrangement) and from a middle-game position with portals and a Queen to
//! take (`tests/data/fidchell.perft`, id `queen-return`).
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn perft_fidchell(c: &mut Criterion) {
    let v = ravenpost::variants::by_name("fidchell", &[("introduction".into(), "default".into())]).unwrap();
    let start = v.start_position();
    let mut g = c.benchmark_group("perft_fidchell");
    g.sample_size(10);
    // perft 3 = 130,440 leaf nodes (bulk-counted at the last ply).
    g.throughput(Throughput::Elements(130_440));
    g.bench_function("default_depth_3", |b| b.iter(|| assert_eq!(v.perft(&start, 3), 130_440)));
    let mid = ravenpost::notation::position_string::parse_position(
        &v,
        "n4k6/6q2c2/2(rp)1(s+)7/3(mk)8/11(B+)/12/1B6I3/W6W4/4(D+)5(AE)1/12/12/1K4Q5 w - - 0000/0000 - 0 20",
    )
    .unwrap();
    g.throughput(Throughput::Elements(939_612));
    g.bench_function("queen_return_depth_3", |b| b.iter(|| assert_eq!(v.perft(&mid, 3), 939_612)));
    g.finish();
}

criterion_group!(benches, perft_fidchell);
criterion_main!(benches);
