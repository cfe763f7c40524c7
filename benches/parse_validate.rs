//! Parsing plus replaying a large generated archive: moves per second.
//!
//! The archive is 200 Gygax Chess games of up to 80 plies, made by playing pseudo-random
//! legal moves from a fixed seed and writing them in canonical form.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ravenpost::notation::pgn::GameReader;
use ravenpost::notation::san::write_move;
use ravenpost::record::game::replay;

fn archive() -> (String, u64) {
    let v = ravenpost::variants::by_name("gygax", &[]).unwrap();
    let mut seed: u64 = 0x9e37_79b9;
    let mut text = String::new();
    let mut total = 0;
    for g in 0..200 {
        let mut p = v.start_position();
        text.push_str(&format!("[Event \"bench {g}\"]\n[Variant \"gygax\"]\n\n"));
        for ply in 0..80 {
            let legal = v.legal_moves(&p);
            if legal.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let m = legal[(seed % legal.len() as u64) as usize];
            if ply % 2 == 0 {
                text.push_str(&format!("{}. ", ply / 2 + 1));
            }
            text.push_str(&write_move(&v, &p, &m));
            text.push(' ');
            p = v.make(&p, &m);
            total += 1;
        }
        let result = v.outcome(&p).map(ravenpost::record::game::result_token).unwrap_or("*");
        text.push_str(result);
        text.push_str("\n\n");
    }
    (text, total)
}

fn parse_validate(c: &mut Criterion) {
    let (text, moves) = archive();
    let mut g = c.benchmark_group("parse_validate");
    g.sample_size(10);
    g.throughput(Throughput::Elements(moves));
    g.bench_function("gygax_200_games", |b| {
        b.iter(|| {
            let mut n = 0;
            for game in GameReader::new(text.as_bytes()) {
                n += replay(game.unwrap()).unwrap().moves.len() as u64;
            }
            assert_eq!(n, moves);
        })
    });
    g.finish();
}

criterion_group!(benches, parse_validate);
criterion_main!(benches);
