package digestmemo

import "path"

// memoCheckoutKey is the memo entry that names the commit every other
// entry of a Checkout root's memo holds for (its Digest; "" for none). No
// path starts with a NUL, and the entry is written in the same batch as
// what it vouches for, so a torn save loses both.
const memoCheckoutKey = "\x00checkout"

// vouch opens m for a Checkout root: when the memo holds for an earlier
// commit and every change since is plain, the entries the changes touch
// are dropped and the rest trusted (trusted); otherwise each entry is
// checked by its stat, as for any root.
func (m *Memo) vouch(co *Checkout) {
	m.co = co
	since := m.old[memoCheckoutKey].Digest
	if co == nil || co.Fresh || since == "" || co.Changes == nil {
		return
	}
	changed, plain, err := co.Changes(since)
	if err != nil || !plain {
		return
	}
	m.changedAt = map[string]bool{}
	for _, p := range changed {
		m.forget(p)
		m.forget("dir:" + p)
		m.changedAt[p] = true
		for dir := path.Dir(p); ; dir = path.Dir(dir) {
			m.forget("dir:" + dir) // its listing may have gained or lost p
			m.changedAt[dir] = true
			if dir == "." || dir == "/" {
				break
			}
		}
	}
	m.vouched = true
}

// forget drops key's entry, in this run and in the saved memo.
func (m *Memo) forget(key string) {
	if _, ok := m.old[key]; ok {
		delete(m.old, key)
		m.learnt[key] = Entry{} // a tombstone: later batches override earlier ones
	}
}

// trusted is the digest recorded under key when the memo is vouched for
// by git (vouch): what an earlier commit's run recorded of a path that has
// not changed since.
func (m *Memo) Trusted(key string) (string, bool) {
	if !m.vouched {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.now[key]; ok && e.Digest != "" {
		return e.Digest, true
	}
	e, ok := m.old[key]
	return e.Digest, ok && e.Digest != ""
}

// checkoutEntry is what save writes under memoCheckoutKey, and whether the
// memo must be written whole for it: a vouched memo holds for Commit
// with this run's changes; a memo checked by stat on a Checkout root holds
// for Commit only with what this run checked (an entry from an earlier
// run may be of a file changed since), when the tree is plain; a memo of
// any other root holds for no commit.
func (m *Memo) checkoutEntry() (e Entry, whole bool) {
	switch {
	case m.co == nil:
		return Entry{}, false
	case m.vouched:
		return Entry{Digest: m.co.Commit}, false
	}
	if m.co.Plain == nil {
		return Entry{}, false
	}
	if plain, err := m.co.Plain(); err != nil || !plain {
		return Entry{}, false
	}
	return Entry{Digest: m.co.Commit}, true
}

// changedUnder reports whether git said a path at or under p (root-
// relative) changed since the memo's commit.
func (m *Memo) ChangedUnder(p string) bool { return m.changedAt[p] }
