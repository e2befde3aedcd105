//! The crate's modules import one way: no module imports (through `crate::...` paths outside
//! comments and unit tests) a module that imports it back, directly or through others.

use std::collections::{BTreeMap, BTreeSet};

fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut files: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) == Some("rs") {
            let name = path.file_stem().unwrap().to_str().unwrap().to_string();
            files.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    let names: BTreeSet<String> = files.iter().map(|(n, _)| n.clone()).collect();
    let mut graph = BTreeMap::new();
    for (name, text) in &files {
        if name == "lib" {
            continue;
        }
        // Unit tests may reach anywhere; comments are not imports.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let code: String = code
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .collect::<Vec<_>>()
            .join("\n");
        let mut deps = BTreeSet::new();
        let mut rest = code.as_str();
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            // `crate::a::b` names a; `crate::{a::x, b}` names a and b.
            let head = if let Some(group) = rest.strip_prefix('{') {
                let inner = &group[..group.find('}').unwrap_or(group.len())];
                inner
                    .split(',')
                    .map(|p| p.trim().split("::").next().unwrap().to_string())
                    .collect::<Vec<_>>()
            } else {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                vec![rest[..end].to_string()]
            };
            for m in head {
                if names.contains(&m) && m != *name && m != "lib" {
                    deps.insert(m);
                }
            }
        }
        graph.insert(name.clone(), deps);
    }
    graph
}

#[test]
fn the_module_graph_has_no_cycle() {
    let graph = imports();
    assert!(graph.len() >= 10, "{graph:?}");
    // Depth-first search for a back edge.
    fn visit<'a>(
        m: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) {
        state.insert(m, 1);
        path.push(m);
        for d in &graph[m] {
            match state.get(d.as_str()) {
                Some(1) => panic!("an import cycle: {} -> {d}", path.join(" -> ")),
                Some(_) => {}
                None => visit(d, graph, state, path),
            }
        }
        path.pop();
        state.insert(m, 2);
    }
    let mut state = BTreeMap::new();
    for m in graph.keys() {
        if !state.contains_key(m.as_str()) {
            visit(m, &graph, &mut state, &mut Vec::new());
        }
    }
    // The leaves stay leaves; the product takes only the threads from above them.
    for leaf in ["parallel", "error"] {
        assert!(graph[leaf].is_empty(), "{leaf} imports {:?}", graph[leaf]);
    }
    assert!(
        graph["linalg"].iter().all(|m| m == "parallel"),
        "linalg imports {:?}",
        graph["linalg"]
    );
    // The estimate reads the configuration, not the run.
    for above in ["measure", "report", "stages", "shares", "bound", "fits"] {
        assert!(!graph["memory"].contains(above), "memory imports {above}");
    }
}
