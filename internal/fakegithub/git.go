package fakegithub

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// The Git Data API: blobs, trees, commits and refs, enough to upload files
// to a branch the way capreport publishes images. Objects are hashed as
// Git hashes them (SHA-1 of "TYPE SIZE\0CONTENT"), so a blob's SHA is the
// one `git hash-object` prints and identical content is stored once.

// put stores an object under its hash and returns the hash.
func (st *state) put(o *object) string {
	var payload []byte
	switch o.kind {
	case "blob":
		payload = o.data
	case "tree":
		payload = treePayload(o.tree)
	case "commit":
		payload = commitPayload(o.commit)
	}
	sha := gitHash(o.kind, payload)
	st.objects[sha] = o
	return sha
}

// treePayload is Git's binary tree format, entries sorted as Git sorts
// them (a subtree as if its name ended in "/").
func treePayload(entries []treeEntry) []byte {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b treeEntry) int { return strings.Compare(sortName(a), sortName(b)) })
	var out []byte
	for _, e := range sorted {
		raw, err := hex.DecodeString(e.sha)
		if err != nil || len(raw) != sha1.Size {
			raw = make([]byte, sha1.Size) // only validated SHAs get here
		}
		out = append(out, strings.TrimPrefix(e.mode, "0")+" "+e.name+"\x00"...)
		out = append(out, raw...)
	}
	return out
}

func sortName(e treeEntry) string {
	if e.typ == "tree" {
		return e.name + "/"
	}
	return e.name
}

func commitPayload(c *commitObject) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", c.tree)
	for _, p := range c.parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	for _, who := range []struct {
		role string
		sig  signature
	}{{"author", c.author}, {"committer", c.committer}} {
		fmt.Fprintf(&b, "%s %s <%s> %d +0000\n", who.role, who.sig.Name, who.sig.Email, who.sig.Date.Unix())
	}
	b.WriteString("\n" + c.message)
	return []byte(b.String())
}

func (st *state) get(sha, kind string) *object {
	if o := st.objects[sha]; o != nil && o.kind == kind {
		return o
	}
	return nil
}

// --- blobs ---

func (s *Server) createBlob(c *call) response {
	if resp, ok := c.require("write", scopeContents); !ok {
		return resp
	}
	var req struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if resp, ok := c.decode(&req); !ok {
		return resp
	}
	if req.Content == nil {
		return c.unprocessable("Invalid request.\n\n\"content\" wasn't supplied.")
	}
	var data []byte
	switch req.Encoding {
	case "", "utf-8":
		data = []byte(*req.Content)
	case "base64":
		// GitHub's own base64 (in blob responses) is wrapped; accept that.
		d, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(*req.Content), ""))
		if err != nil {
			return c.unprocessable("content is not valid Base64")
		}
		data = d
	default:
		return c.unprocessable(fmt.Sprintf("encoding %q is not supported: use utf-8 or base64", req.Encoding))
	}
	sha := s.st.put(&object{kind: "blob", data: data})
	return jsonResponse(http.StatusCreated, map[string]any{"sha": sha, "url": s.api("git/blobs/%s", sha)})
}

func (s *Server) getBlob(c *call) response {
	if resp, ok := c.require("read", scopeContents); !ok {
		return resp
	}
	sha := c.params["sha"]
	o := s.st.get(sha, "blob")
	if o == nil {
		return c.notFound()
	}
	if strings.Contains(c.r.Header.Get("Accept"), ".raw") {
		return response{status: http.StatusOK, body: slices.Clone(o.data),
			header: http.Header{"Content-Type": {"application/vnd.github.raw"}}}
	}
	return jsonResponse(http.StatusOK, map[string]any{
		"sha": sha, "node_id": "B_kwDO" + sha[:12], "size": len(o.data), "url": s.api("git/blobs/%s", sha),
		"content": wrap60(base64.StdEncoding.EncodeToString(o.data)), "encoding": "base64",
	})
}

// wrap60 breaks base64 into lines of 60 characters, as GitHub sends it.
func wrap60(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60] + "\n")
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteString("\n")
	return b.String()
}

// --- trees ---

// leaf is a non-tree entry at a full path, the flat view of a tree that
// merging with base_tree works on.
type leaf struct{ mode, typ, sha string }

// validModes are the file modes Git trees hold, and the type each implies.
var validModes = map[string]string{
	"100644": "blob", "100755": "blob", "120000": "blob",
	"040000": "tree", "160000": "commit",
}

// treeInput is one entry of a create-tree request.
type treeInput struct {
	Path    *string `json:"path"`
	Mode    *string `json:"mode"`
	Type    *string `json:"type"`
	SHA     rawSHA  `json:"sha"` // null deletes the path
	Content *string `json:"content"`
}

func (s *Server) createTree(c *call) response {
	if resp, ok := c.require("write", scopeContents); !ok {
		return resp
	}
	var req struct {
		BaseTree string      `json:"base_tree"`
		Tree     []treeInput `json:"tree"`
	}
	if resp, ok := c.decode(&req); !ok {
		return resp
	}
	if req.Tree == nil {
		return c.unprocessable("Invalid request.\n\n\"tree\" wasn't supplied.")
	}

	files := map[string]leaf{}
	if req.BaseTree != "" {
		if s.st.get(req.BaseTree, "tree") == nil {
			return c.unprocessable(fmt.Sprintf("base_tree %s is not a tree", req.BaseTree))
		}
		s.st.flatten(req.BaseTree, "", files)
	}
	for _, e := range req.Tree {
		if msg := s.applyTreeInput(files, e); msg != "" {
			return c.unprocessable(msg)
		}
	}
	sha := s.st.buildTree(files)
	return jsonResponse(http.StatusCreated, s.treeJSON(sha, false))
}

// applyTreeInput applies one entry to the flattened tree, as GitHub does;
// a non-empty result is GitHub's 422 message for a bad entry.
func (s *Server) applyTreeInput(files map[string]leaf, e treeInput) string {
	if e.Path == nil || !validPath(*e.Path) {
		return "tree.path contains a malformed path component"
	}
	path := *e.Path
	if e.Mode == nil || validModes[*e.Mode] == "" {
		return "tree.mode contains a malformed file mode"
	}
	if e.Type == nil || validModes[*e.Mode] != *e.Type {
		return fmt.Sprintf("tree.type must be %q for mode %s", validModes[*e.Mode], *e.Mode)
	}
	mode, typ := *e.Mode, *e.Type
	switch {
	case e.SHA.set && e.Content != nil:
		return "Must supply either tree.sha or tree.content, not both"
	case e.SHA.set && e.SHA.null:
		// "sha": null deletes the path (and everything under it).
		removePath(files, path)
	case e.SHA.set:
		return s.setTreeSHA(files, path, mode, typ, e.SHA.value)
	case e.Content != nil:
		if typ != "blob" {
			return "tree.content is only valid for blobs"
		}
		setPath(files, path, leaf{mode, typ, s.st.put(&object{kind: "blob", data: []byte(*e.Content)})})
	default:
		return "Must supply either tree.sha or tree.content"
	}
	return ""
}

// setTreeSHA points path at an existing object: a blob, a whole tree
// (replacing what was under path) or a submodule's commit.
func (s *Server) setTreeSHA(files map[string]leaf, path, mode, typ, sha string) string {
	switch typ {
	case "blob":
		if s.st.get(sha, "blob") == nil {
			return fmt.Sprintf("tree.sha %s is not a valid blob", sha)
		}
		setPath(files, path, leaf{mode, typ, sha})
	case "tree":
		if s.st.get(sha, "tree") == nil {
			return fmt.Sprintf("tree.sha %s is not a valid tree", sha)
		}
		removePath(files, path)
		sub := map[string]leaf{}
		s.st.flatten(sha, path+"/", sub)
		for p, l := range sub {
			files[p] = l
		}
	case "commit": // a submodule: the commit lives in another repository
		if len(sha) != 40 {
			return fmt.Sprintf("tree.sha %s is not a valid commit", sha)
		}
		setPath(files, path, leaf{mode, typ, sha})
	}
	return ""
}

// rawSHA tells a "sha" that was absent from one that was null: json
// calls UnmarshalJSON for null only on a non-pointer field.
type rawSHA struct {
	set, null bool
	value     string
}

func (r *rawSHA) UnmarshalJSON(b []byte) error {
	r.set = true
	if string(b) == "null" {
		r.null = true
		return nil
	}
	return json.Unmarshal(b, &r.value)
}

func validPath(p string) bool {
	if p == "" {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." || seg == ".git" || strings.ContainsRune(seg, 0) {
			return false
		}
	}
	return true
}

// setPath puts a file at path, replacing whatever stood in its way: a
// file where a directory of the path should be, or a directory at path.
func setPath(files map[string]leaf, path string, l leaf) {
	removePath(files, path)
	for dir := path; ; {
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			break
		}
		dir = dir[:i]
		delete(files, dir)
	}
	files[path] = l
}

// removePath deletes path and everything under it.
func removePath(files map[string]leaf, path string) {
	delete(files, path)
	for p := range files {
		if strings.HasPrefix(p, path+"/") {
			delete(files, p)
		}
	}
}

// flatten lists the non-tree entries under tree sha, with prefix.
func (st *state) flatten(sha, prefix string, into map[string]leaf) {
	for _, e := range st.objects[sha].tree {
		if e.typ == "tree" {
			st.flatten(e.sha, prefix+e.name+"/", into)
			continue
		}
		into[prefix+e.name] = leaf{e.mode, e.typ, e.sha}
	}
}

// buildTree stores the nested tree objects of a flat file list, innermost
// first, and returns the root's SHA.
func (st *state) buildTree(files map[string]leaf) string {
	var entries []treeEntry
	subdirs := map[string]map[string]leaf{}
	for p, l := range files {
		if dir, rest, ok := strings.Cut(p, "/"); ok {
			if subdirs[dir] == nil {
				subdirs[dir] = map[string]leaf{}
			}
			subdirs[dir][rest] = l
			continue
		}
		entries = append(entries, treeEntry{name: p, mode: l.mode, typ: l.typ, sha: l.sha})
	}
	for dir, sub := range subdirs {
		entries = append(entries, treeEntry{name: dir, mode: "040000", typ: "tree", sha: st.buildTree(sub)})
	}
	slices.SortFunc(entries, func(a, b treeEntry) int { return strings.Compare(sortName(a), sortName(b)) })
	return st.put(&object{kind: "tree", tree: entries})
}

func (s *Server) getTree(c *call) response {
	if resp, ok := c.require("read", scopeContents); !ok {
		return resp
	}
	sha := c.params["sha"]
	if s.st.get(sha, "tree") == nil {
		return c.notFound()
	}
	// Any value of recursive, even "false", asks for the whole tree, as
	// GitHub documents.
	return jsonResponse(http.StatusOK, s.treeJSON(sha, c.r.URL.Query().Has("recursive")))
}

func (s *Server) treeJSON(sha string, recursive bool) map[string]any {
	var entries []any
	var walk func(sha, prefix string)
	walk = func(sha, prefix string) {
		for _, e := range s.st.objects[sha].tree {
			m := map[string]any{"path": prefix + e.name, "mode": e.mode, "type": e.typ, "sha": e.sha}
			switch e.typ {
			case "blob":
				m["size"] = len(s.st.objects[e.sha].data)
				m["url"] = s.api("git/blobs/%s", e.sha)
			case "tree":
				m["url"] = s.api("git/trees/%s", e.sha)
			}
			entries = append(entries, m)
			if recursive && e.typ == "tree" {
				walk(e.sha, prefix+e.name+"/")
			}
		}
	}
	walk(sha, "")
	if entries == nil {
		entries = []any{}
	}
	return map[string]any{"sha": sha, "url": s.api("git/trees/%s", sha), "tree": entries, "truncated": false}
}

// --- commits ---

func (s *Server) createCommit(c *call) response {
	if resp, ok := c.require("write", scopeContents); !ok {
		return resp
	}
	var req struct {
		Message   *string    `json:"message"`
		Tree      *string    `json:"tree"`
		Parents   []string   `json:"parents"`
		Author    *signature `json:"author"`
		Committer *signature `json:"committer"`
	}
	if resp, ok := c.decode(&req); !ok {
		return resp
	}
	switch {
	case req.Message == nil:
		return c.unprocessable("Invalid request.\n\n\"message\" wasn't supplied.")
	case req.Tree == nil:
		return c.unprocessable("Invalid request.\n\n\"tree\" wasn't supplied.")
	case s.st.get(*req.Tree, "tree") == nil:
		return c.unprocessable("Tree SHA does not exist")
	}
	for _, p := range req.Parents {
		if s.st.get(p, "commit") == nil {
			return c.unprocessable("Parent SHA does not exist or is not a commit object")
		}
	}
	now := s.st.tick()
	// The token's identity signs what the request leaves out.
	author := signature{Name: botLogin, Email: "41898282+github-actions[bot]@users.noreply.github.com", Date: now}
	if req.Author != nil {
		author = fillSignature(*req.Author, author)
	}
	committer := author
	if req.Committer != nil {
		committer = fillSignature(*req.Committer, author)
	}
	sha := s.st.put(&object{kind: "commit", commit: &commitObject{
		tree: *req.Tree, message: *req.Message, parents: slices.Clone(req.Parents),
		author: author, committer: committer,
	}})
	return jsonResponse(http.StatusCreated, s.commitJSON(sha))
}

func fillSignature(sig, def signature) signature {
	sig.Name = orDefault(sig.Name, def.Name)
	sig.Email = orDefault(sig.Email, def.Email)
	if sig.Date.IsZero() {
		sig.Date = def.Date
	}
	return sig
}

func (s *Server) getCommit(c *call) response {
	if resp, ok := c.require("read", scopeContents); !ok {
		return resp
	}
	sha := c.params["sha"]
	if s.st.get(sha, "commit") == nil {
		return c.notFound()
	}
	return jsonResponse(http.StatusOK, s.commitJSON(sha))
}

func (s *Server) commitJSON(sha string) map[string]any {
	cm := s.st.objects[sha].commit
	sig := func(g signature) map[string]any {
		return map[string]any{"name": g.Name, "email": g.Email, "date": stamp(g.Date)}
	}
	parents := make([]any, len(cm.parents))
	for i, p := range cm.parents {
		parents[i] = map[string]any{"sha": p, "url": s.api("git/commits/%s", p), "html_url": s.web("commit/%s", p)}
	}
	return map[string]any{
		"sha": sha, "node_id": "C_kwDO" + sha[:12],
		"url": s.api("git/commits/%s", sha), "html_url": s.web("commit/%s", sha),
		"author": sig(cm.author), "committer": sig(cm.committer), "message": cm.message,
		"tree":         map[string]any{"sha": cm.tree, "url": s.api("git/trees/%s", cm.tree)},
		"parents":      parents,
		"verification": map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil},
	}
}

// isAncestor says whether commit old is reachable from commit tip.
func (st *state) isAncestor(old, tip string) bool {
	seen := map[string]bool{}
	queue := []string{tip}
	for len(queue) > 0 {
		sha := queue[0]
		queue = queue[1:]
		if sha == old {
			return true
		}
		if seen[sha] {
			continue
		}
		seen[sha] = true
		if o := st.get(sha, "commit"); o != nil {
			queue = append(queue, o.commit.parents...)
		}
	}
	return false
}

// --- refs ---

func (s *Server) refJSON(name string) map[string]any {
	sha := s.st.refs[name]
	return map[string]any{
		"ref": name, "node_id": "REF_kwDO" + strings.ReplaceAll(name, "/", "_"),
		"url":    s.api("git/%s", name),
		"object": map[string]any{"type": s.st.objects[sha].kind, "sha": sha, "url": s.api("git/%ss/%s", s.st.objects[sha].kind, sha)},
	}
}

// getRef answers git/ref/{ref} (one ref) and the older git/refs/{ref},
// which answers an array of the refs under a prefix when there is no ref
// of that exact name.
func (s *Server) getRef(c *call) response {
	if resp, ok := c.require("read", scopeContents); !ok {
		return resp
	}
	name := "refs/" + c.params["ref"]
	if _, ok := s.st.refs[name]; ok {
		return jsonResponse(http.StatusOK, s.refJSON(name))
	}
	if strings.Contains(c.r.URL.Path, "/git/refs/") {
		var names []string
		for n := range s.st.refs {
			if strings.HasPrefix(n, name+"/") {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			slices.Sort(names)
			out := make([]any, len(names))
			for i, n := range names {
				out[i] = s.refJSON(n)
			}
			return jsonResponse(http.StatusOK, out)
		}
	}
	return c.notFound()
}

// validRefName applies the rules of git check-ref-format that matter for
// branch names made by programs.
func validRefName(name string) bool {
	if !strings.HasPrefix(name, "refs/") || strings.Count(name, "/") < 2 {
		return false
	}
	if strings.ContainsAny(name, " ~^:?*[\\\x7f") || strings.Contains(name, "..") || strings.Contains(name, "@{") ||
		strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") || strings.HasSuffix(name, ".lock") {
		return false
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || strings.HasPrefix(seg, ".") {
			return false
		}
	}
	return true
}

func (s *Server) createRef(c *call) response {
	if resp, ok := c.require("write", scopeContents); !ok {
		return resp
	}
	var req struct {
		Ref *string `json:"ref"`
		SHA *string `json:"sha"`
	}
	if resp, ok := c.decode(&req); !ok {
		return resp
	}
	switch {
	case req.Ref == nil:
		return c.unprocessable("Invalid request.\n\n\"ref\" wasn't supplied.")
	case req.SHA == nil:
		return c.unprocessable("Invalid request.\n\n\"sha\" wasn't supplied.")
	case !validRefName(*req.Ref):
		return c.unprocessable("Reference name is invalid: it must start with 'refs/' and have at least two slashes")
	case s.st.objects[*req.SHA] == nil:
		return c.unprocessable("Object does not exist")
	}
	if _, ok := s.st.refs[*req.Ref]; ok {
		return c.unprocessable("Reference already exists")
	}
	s.st.refs[*req.Ref] = *req.SHA
	return jsonResponse(http.StatusCreated, s.refJSON(*req.Ref))
}

func (s *Server) updateRef(c *call) response {
	if resp, ok := c.require("write", scopeContents); !ok {
		return resp
	}
	name := "refs/" + c.params["ref"]
	old, ok := s.st.refs[name]
	if !ok {
		return c.unprocessable("Reference does not exist")
	}
	var req struct {
		SHA   *string `json:"sha"`
		Force bool    `json:"force"`
	}
	if resp, ok := c.decode(&req); !ok {
		return resp
	}
	switch {
	case req.SHA == nil:
		return c.unprocessable("Invalid request.\n\n\"sha\" wasn't supplied.")
	case s.st.objects[*req.SHA] == nil:
		return c.unprocessable("Object does not exist")
	case !req.Force && !s.st.isAncestor(old, *req.SHA):
		return c.unprocessable("Update is not a fast forward")
	}
	s.st.refs[name] = *req.SHA
	return jsonResponse(http.StatusOK, s.refJSON(name))
}

func (s *Server) deleteRef(c *call) response {
	if resp, ok := c.require("write", scopeContents); !ok {
		return resp
	}
	name := "refs/" + c.params["ref"]
	if _, ok := s.st.refs[name]; !ok {
		return c.unprocessable("Reference does not exist")
	}
	delete(s.st.refs, name)
	return response{status: http.StatusNoContent}
}

// --- inspection, for tests ---

// Ref returns the commit SHA branch ("x" or "refs/heads/x") points at.
func (s *Server) Ref(branch string) (sha string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha, ok = s.st.refs["refs/heads/"+strings.TrimPrefix(branch, "refs/heads/")]
	return sha, ok
}

// File returns the content of path in the commit branch points at,
// following ref, commit, trees and blob as a clone would.
func (s *Server) File(branch, path string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha, ok := s.st.refs["refs/heads/"+strings.TrimPrefix(branch, "refs/heads/")]
	if !ok {
		return nil, false
	}
	cm := s.st.get(sha, "commit")
	if cm == nil {
		return nil, false
	}
	sha = cm.commit.tree
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		tree := s.st.get(sha, "tree")
		if tree == nil {
			return nil, false
		}
		j := slices.IndexFunc(tree.tree, func(e treeEntry) bool { return e.name == seg })
		if j < 0 {
			return nil, false
		}
		e := tree.tree[j]
		if i == len(segs)-1 {
			if blob := s.st.get(e.sha, "blob"); blob != nil && e.typ == "blob" {
				return slices.Clone(blob.data), true
			}
			return nil, false
		}
		sha = e.sha
	}
	return nil, false
}
