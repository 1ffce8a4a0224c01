//! The server assignors of KIP-848 groups.

use super::*;

/// The server assignors: `uniform` (sticky and balanced, `UniformAssignor`) and `range`
/// (`RangeAssignor`: per topic, contiguous ranges in member-id order). Members listed by id.
pub(super) fn assign(
    assignor: &str,
    members: &BTreeMap<String, ConsumerMember>,
    previous: &BTreeMap<String, Assignment>,
    topics: &dyn Fn(&str) -> Option<TopicMeta>,
) -> BTreeMap<String, Assignment> {
    let mut out: BTreeMap<String, Assignment> = members
        .keys()
        .map(|id| (id.clone(), Assignment::new()))
        .collect();
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for m in members.values() {
        names.extend(m.meta.subscribed_topic_names.iter().map(String::as_str));
    }
    let metas: Vec<TopicMeta> = names.into_iter().filter_map(topics).collect();
    let subscribers = |t: &TopicMeta| -> Vec<&str> {
        members
            .values()
            .filter(|m| m.meta.subscribed_topic_names.iter().any(|n| n == &t.name))
            .map(|m| m.id.as_str())
            .collect()
    };
    if assignor == "range" {
        for t in &metas {
            let subs = subscribers(t);
            if subs.is_empty() {
                continue;
            }
            let n = t.partitions as usize;
            let (quota, extra) = (n / subs.len(), n % subs.len());
            let mut next = 0usize;
            for (i, id) in subs.iter().enumerate() {
                let count = quota + usize::from(i < extra);
                if let Some(a) = out.get_mut(*id) {
                    a.entry(t.id)
                        .or_default()
                        .extend((next..next + count).map(|p| p as i32));
                }
                next += count;
            }
        }
        return out;
    }
    // Uniform: every subscriber of a topic set gets its fair share; a member keeps the
    // partitions it was assigned before, up to its share, and the rest go to the members with
    // the fewest.
    let all: Vec<([u8; 16], i32, Vec<&str>)> = metas
        .iter()
        .flat_map(|t| {
            let subs = subscribers(t);
            (0..t.partitions).map(move |p| (t.id, p, subs.clone()))
        })
        .collect();
    let total = all.len();
    let m = members.len().max(1);
    let (min_quota, mut extras) = (total / m, total % m);
    let mut counts: BTreeMap<&str, usize> = members.keys().map(|k| (k.as_str(), 0)).collect();
    let mut unassigned = Vec::new();
    // Sticky pass, first to the minimum quota.
    let mut sticky: Vec<(&str, [u8; 16], i32)> = Vec::new();
    for (t, p, subs) in &all {
        let owner = subs.iter().find(|id| {
            previous
                .get(**id)
                .is_some_and(|a| a.get(t).is_some_and(|s| s.contains(p)))
        });
        match owner {
            Some(id) => sticky.push((id, *t, *p)),
            None => unassigned.push((*t, *p, subs.clone())),
        }
    }
    let mut over = Vec::new();
    for (id, t, p) in sticky {
        let c = counts.get_mut(id).expect("member");
        if *c < min_quota {
            *c += 1;
            give(&mut out, id, t, p);
        } else {
            over.push((id, t, p));
        }
    }
    // A member may keep one more when an extra slot is left.
    for (id, t, p) in over {
        let c = counts.get_mut(id).expect("member");
        if *c == min_quota && extras > 0 {
            extras -= 1;
            *c += 1;
            give(&mut out, id, t, p);
        } else {
            let subs = all
                .iter()
                .find(|(tt, pp, _)| *tt == t && *pp == p)
                .map(|(_, _, s)| s.clone())
                .unwrap_or_default();
            unassigned.push((t, p, subs));
        }
    }
    unassigned.sort_by_key(|a| (a.0, a.1));
    for (t, p, subs) in unassigned {
        let best = subs
            .iter()
            .min_by_key(|id| (counts.get(**id).copied().unwrap_or(usize::MAX), **id));
        if let Some(id) = best {
            *counts.get_mut(*id).expect("member") += 1;
            give(&mut out, id, t, p);
        }
    }
    out
}

/// Gives partition `p` of topic `t` to member `id` (every member has an entry in `out`).
fn give(out: &mut BTreeMap<String, Assignment>, id: &str, t: [u8; 16], p: i32) {
    if let Some(a) = out.get_mut(id) {
        a.entry(t).or_default().insert(p);
    }
}
