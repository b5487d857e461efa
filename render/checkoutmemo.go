package render

import "path"

// Checkout says that the root is a checkout of a git commit that only
// capreport writes to: pipeline's kept worktree, moved to each base with
// `git checkout --force` and `git clean -ffdx`. Its files' bytes then
// change only where two commits differ, so the digest memo of such a root
// trusts what it recorded at an earlier commit for every path git says is
// the same at this one, without a stat: a warm diff's base checks its
// 12,000 inputs with one git diff instead of 12,000 stats.
type Checkout struct {
	// Commit is the commit the root holds.
	Commit string
	// Changes lists the root-relative paths that differ between an
	// earlier commit and Commit (slash-separated), and whether all of them
	// are plain: none a symbolic link, a submodule or a .gitattributes on
	// either side.
	Changes func(since string) (paths []string, plain bool, err error)
	// Plain reports whether Commit's tree holds no symbolic link or
	// submodule: a link's target can change while the link does not, and
	// a submodule's files are not the tree's. (A changed .gitattributes,
	// which can make git rewrite files whose blobs did not change, is not
	// plain in Changes.)
	Plain func() (bool, error)
	// Fresh: the root was checked out anew, not moved from an earlier
	// commit. Its files are written again, through filters and attributes
	// that may differ from when the memo was recorded, so nothing is
	// trusted this run.
	Fresh bool
}

// memoCheckoutKey is the memo entry that names the commit every other
// entry of a Checkout root's memo holds for (its Digest; "" for none). No
// path starts with a NUL, and the entry is written in the same batch as
// what it vouches for, so a torn save loses both.
const memoCheckoutKey = "\x00checkout"

// vouch opens m for a Checkout root: when the memo holds for an earlier
// commit and every change since is plain, the entries the changes touch
// are dropped and the rest trusted (trusted); otherwise each entry is
// checked by its stat, as for any root.
func (m *digestMemo) vouch(co *Checkout) {
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
func (m *digestMemo) forget(key string) {
	if _, ok := m.old[key]; ok {
		delete(m.old, key)
		m.learnt[key] = memoEntry{} // a tombstone: later batches override earlier ones
	}
}

// trusted is the digest recorded under key when the memo is vouched for
// by git (vouch): what an earlier commit's run recorded of a path that has
// not changed since.
func (m *digestMemo) trusted(key string) (string, bool) {
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
func (m *digestMemo) checkoutEntry() (e memoEntry, whole bool) {
	switch {
	case m.co == nil:
		return memoEntry{}, false
	case m.vouched:
		return memoEntry{Digest: m.co.Commit}, false
	}
	if m.co.Plain == nil {
		return memoEntry{}, false
	}
	if plain, err := m.co.Plain(); err != nil || !plain {
		return memoEntry{}, false
	}
	return memoEntry{Digest: m.co.Commit}, true
}

// changedUnder reports whether git said a path at or under p (root-
// relative) changed since the memo's commit.
func (m *digestMemo) changedUnder(p string) bool { return m.changedAt[p] }
