//! Every access to the value ring's bytes goes through `ring::RingView` (docs/design.md,
//! "Memory ordering"): other processes write those bytes concurrently, so a plain copy or a
//! slice over them would be a data race. This checks the engine's source for the ways around
//! the view: the ring's raw pointer is taken once, to build the view, and nothing hashes or
//! slices ring memory in place.

use std::fs;
use std::path::Path;

fn engine_sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            engine_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((path.display().to_string(), fs::read_to_string(&path).unwrap()));
        }
    }
}

#[test]
fn the_ring_is_reached_only_through_its_view() {
    let mut sources = Vec::new();
    engine_sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine"), &mut sources);
    assert!(sources.len() > 10, "engine sources not found");
    let uses: Vec<(&str, usize)> = sources
        .iter()
        .map(|(path, text)| (path.as_str(), text.matches(".ring_ptr()").count()))
        .filter(|&(_, n)| n > 0)
        .collect();
    assert!(
        uses.len() == 1 && uses[0].0.ends_with("src/engine/cache.rs") && uses[0].1 == 1,
        "the ring's pointer must be taken once, in Cache::over, to build the RingView: {uses:?}"
    );
    let cache_rs = &sources.iter().find(|(p, _)| p.ends_with("src/engine/cache.rs")).unwrap().1;
    assert!(
        cache_rs.contains("RingView::new(region.ring_ptr()"),
        "Cache::over builds the view from the ring's pointer"
    );
    for (path, text) in &sources {
        for banned in ["hash_in_place", "ring.add(", "ring.wrapping_add("] {
            assert!(!text.contains(banned), "{path} reads ring memory in place ({banned})");
        }
    }
}
