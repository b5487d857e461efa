package fakegithub

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

func (st *state) init(s *Server) error {
	st.issues = map[int]*issueState{}
	st.commentOnly = map[int]bool{}
	st.objects = map[string]*object{}
	st.refs = map[string]string{}
	st.nextCommentID = 1000001 // far from issue numbers, so a test cannot confuse the two
	for _, pr := range s.cfg.PullRequests {
		if pr.Number <= 0 {
			return fmt.Errorf("pull request number %d must be positive", pr.Number)
		}
		if st.issues[pr.Number] != nil {
			return fmt.Errorf("pull request #%d given twice", pr.Number)
		}
		pr.HeadOwner = orDefault(pr.HeadOwner, s.cfg.Owner)
		pr.HeadRepo = orDefault(pr.HeadRepo, s.cfg.Repo)
		pr.HeadRef = orDefault(pr.HeadRef, fmt.Sprintf("pr-%d", pr.Number))
		pr.HeadSHA = orDefault(pr.HeadSHA, gitHash("commit", []byte(fmt.Sprintf("pull request %d", pr.Number))))
		pr.BaseRef = orDefault(pr.BaseRef, "main")
		pr.State = orDefault(pr.State, "open")
		status := "open" // a merged pull request is a closed issue
		switch pr.State {
		case "open":
		case "closed", "merged":
			status = "closed"
		default:
			return fmt.Errorf("pull request #%d: state %q is not open, closed or merged", pr.Number, pr.State)
		}
		now := st.tick()
		is := &issueState{number: pr.Number, title: fmt.Sprintf("Pull request #%d", pr.Number),
			state: status, user: pr.HeadOwner, created: now, updated: now, pr: &pr}
		if status == "closed" {
			is.closedAt = now
		}
		st.issues[pr.Number] = is
	}
	return nil
}

// tick advances the fake clock.
func (st *state) tick() time.Time {
	st.ticks++
	return epoch.Add(time.Duration(st.ticks) * time.Second)
}

// nextNumber is the next free issue number; issues and pull requests share
// the sequence.
func (st *state) nextNumber() int {
	n := 0
	for k := range st.issues {
		n = max(n, k)
	}
	for k := range st.commentOnly {
		n = max(n, k)
	}
	return n + 1
}

// exists says whether comments can be listed on and posted to number n.
func (st *state) exists(n int) bool { return st.issues[n] != nil || st.commentOnly[n] }

// isPull says whether n is a pull request; a number known only from
// AddComment counts as one, since sticky PR comments are the common case.
func (st *state) isPull(n int) bool {
	if is := st.issues[n]; is != nil {
		return is.pr != nil
	}
	return st.commentOnly[n]
}

// scope is the permission writing to n needs.
func (st *state) scope(n int) string {
	if st.isPull(n) {
		return scopePullRequests
	}
	return scopeIssues
}

func (st *state) comment(id int64) *commentState {
	for _, c := range st.comments {
		if c.ID == id && !c.deleted {
			return c
		}
	}
	return nil
}

func (st *state) commentsOn(n int) []*commentState {
	var out []*commentState
	for _, c := range st.comments {
		if c.issue == n && !c.deleted {
			out = append(out, c)
		}
	}
	return out
}

// --- seeding and inspection, for tests ---

// AddComment seeds a comment on issue or pull request number issue, as if
// user (default github-actions[bot]) had posted it; the body is not
// checked. A number that is neither a configured pull request nor an
// issue becomes one that has comments, treated as a pull request.
func (s *Server) AddComment(issue int, body string, user string) Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.issues[issue] == nil {
		s.st.commentOnly[issue] = true
	}
	return s.st.addComment(issue, body, orDefault(user, botLogin)).Comment
}

func (st *state) addComment(issue int, body, user string) *commentState {
	id := st.nextCommentID
	st.nextCommentID++
	now := st.tick()
	c := &commentState{
		Comment: Comment{ID: id, NodeID: fmt.Sprintf("IC_kwDO%d", id), Body: body, User: user},
		issue:   issue, created: now, updated: now,
	}
	st.comments = append(st.comments, c)
	return c
}

// AddIssue seeds an open issue by github-actions[bot].
func (s *Server) AddIssue(title, body string, labels ...string) Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.addIssue(title, body, labels).public()
}

func (st *state) addIssue(title, body string, labels []string) *issueState {
	now := st.tick()
	is := &issueState{number: st.nextNumber(), title: title, body: body, state: "open",
		user: botLogin, labels: dedupLabels(labels), created: now, updated: now}
	st.issues[is.number] = is
	return is
}

func (is *issueState) public() Issue {
	return Issue{Number: is.number, Title: is.title, Body: is.body, State: is.state, Labels: slices.Clone(is.labels)}
}

// Comments returns the comments now on issue or pull request n, oldest
// first; deleted ones are gone.
func (s *Server) Comments(issueNumber int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.st.commentsOn(issueNumber) {
		out = append(out, c.Comment)
	}
	return out
}

// Issues returns the plain issues (not pull requests), by number.
func (s *Server) Issues() []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Issue
	for _, is := range s.st.sortedIssues() {
		if is.pr == nil {
			out = append(out, is.public())
		}
	}
	return out
}

func (st *state) sortedIssues() []*issueState {
	out := make([]*issueState, 0, len(st.issues))
	for _, is := range st.issues {
		out = append(out, is)
	}
	slices.SortFunc(out, func(a, b *issueState) int { return a.number - b.number })
	return out
}

// --- JSON as the REST API writes it ---

func stamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

// api is the REST URL of a path inside the repository.
func (s *Server) api(format string, args ...any) string {
	return s.URL + "repos/" + s.cfg.Owner + "/" + s.cfg.Repo + "/" + fmt.Sprintf(format, args...)
}

// web is the html_url of a path inside the repository.
func (s *Server) web(format string, args ...any) string {
	return s.ServerURL + s.cfg.Owner + "/" + s.cfg.Repo + "/" + fmt.Sprintf(format, args...)
}

// id is a stable numeric id for a name, for the "id" fields clients may
// read but capreport never relies on.
func id(kind, name string) int64 {
	h := fnv.New32a()
	h.Write([]byte(kind + "\x00" + name))
	return int64(h.Sum32())
}

func (s *Server) userJSON(login string) map[string]any {
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return map[string]any{"login": login, "id": id("user", login), "type": typ,
		"html_url": s.ServerURL + login, "url": s.URL + "users/" + url.PathEscape(login)}
}

func (s *Server) commentJSON(c *commentState) map[string]any {
	kind := "issues"
	if s.st.isPull(c.issue) {
		kind = "pull"
	}
	return map[string]any{
		"id":                 c.ID,
		"node_id":            c.NodeID,
		"url":                s.api("issues/comments/%d", c.ID),
		"html_url":           s.web("%s/%d#issuecomment-%d", kind, c.issue, c.ID),
		"issue_url":          s.api("issues/%d", c.issue),
		"body":               c.Body,
		"user":               s.userJSON(c.User),
		"created_at":         stamp(c.created),
		"updated_at":         stamp(c.updated),
		"author_association": "NONE",
	}
}

func (s *Server) labelJSON(name string) map[string]any {
	return map[string]any{"id": id("label", strings.ToLower(name)), "node_id": fmt.Sprintf("LA_kwDO%d", id("label", strings.ToLower(name))),
		"url": s.api("labels/%s", url.PathEscape(name)), "name": name, "color": "ededed", "default": false, "description": nil}
}

func (s *Server) issueJSON(is *issueState) map[string]any {
	labels := make([]any, len(is.labels))
	for i, l := range is.labels {
		labels[i] = s.labelJSON(l)
	}
	m := map[string]any{
		"id":                 id("issue", fmt.Sprint(is.number)),
		"node_id":            fmt.Sprintf("I_kwDO%d", is.number),
		"number":             is.number,
		"title":              is.title,
		"body":               is.body,
		"state":              is.state,
		"labels":             labels,
		"locked":             false,
		"comments":           len(s.st.commentsOn(is.number)),
		"url":                s.api("issues/%d", is.number),
		"html_url":           s.web("issues/%d", is.number),
		"comments_url":       s.api("issues/%d/comments", is.number),
		"user":               s.userJSON(is.user),
		"author_association": "NONE",
		"created_at":         stamp(is.created),
		"updated_at":         stamp(is.updated),
		"closed_at":          stamp(is.closedAt),
	}
	if is.body == "" {
		m["body"] = nil // GitHub sends null for an empty body
	}
	if is.pr != nil {
		m["node_id"] = fmt.Sprintf("PR_kwDO%d", is.number)
		m["html_url"] = s.web("pull/%d", is.number)
		m["pull_request"] = map[string]any{
			"url":       s.api("pulls/%d", is.number),
			"html_url":  s.web("pull/%d", is.number),
			"diff_url":  s.web("pull/%d.diff", is.number),
			"patch_url": s.web("pull/%d.patch", is.number),
			"merged_at": s.mergedAt(is),
		}
	}
	return m
}

func (s *Server) mergedAt(is *issueState) any {
	if is.pr.State == "merged" {
		return stamp(is.closedAt)
	}
	return nil
}

func (s *Server) repoJSON(owner, name string) map[string]any {
	return map[string]any{
		"id": id("repo", owner+"/"+name), "node_id": fmt.Sprintf("R_kgDO%d", id("repo", owner+"/"+name)),
		"name": name, "full_name": owner + "/" + name, "owner": s.userJSON(owner),
		"private": false, "fork": !strings.EqualFold(owner+"/"+name, s.cfg.Owner+"/"+s.cfg.Repo),
		"html_url": s.ServerURL + owner + "/" + name, "url": s.URL + "repos/" + owner + "/" + name,
		"default_branch": "main",
	}
}

func (s *Server) pullJSON(is *issueState) map[string]any {
	pr := is.pr
	baseSHA := s.st.refs["refs/heads/"+pr.BaseRef]
	if baseSHA == "" {
		baseSHA = gitHash("commit", []byte("base "+pr.BaseRef))
	}
	m := map[string]any{
		"id":           id("pull", fmt.Sprint(is.number)),
		"node_id":      fmt.Sprintf("PR_kwDO%d", is.number),
		"number":       is.number,
		"state":        is.state,
		"locked":       false,
		"draft":        false,
		"title":        is.title,
		"body":         nil,
		"user":         s.userJSON(is.user),
		"url":          s.api("pulls/%d", is.number),
		"html_url":     s.web("pull/%d", is.number),
		"issue_url":    s.api("issues/%d", is.number),
		"comments_url": s.api("issues/%d/comments", is.number),
		"diff_url":     s.web("pull/%d.diff", is.number),
		"patch_url":    s.web("pull/%d.patch", is.number),
		"created_at":   stamp(is.created),
		"updated_at":   stamp(is.updated),
		"closed_at":    stamp(is.closedAt),
		"merged_at":    s.mergedAt(is),
		"merged":       pr.State == "merged",
		"head": map[string]any{
			"label": pr.HeadOwner + ":" + pr.HeadRef, "ref": pr.HeadRef, "sha": pr.HeadSHA,
			"user": s.userJSON(pr.HeadOwner), "repo": s.repoJSON(pr.HeadOwner, pr.HeadRepo),
		},
		"base": map[string]any{
			"label": s.cfg.Owner + ":" + pr.BaseRef, "ref": pr.BaseRef, "sha": baseSHA,
			"user": s.userJSON(s.cfg.Owner), "repo": s.repoJSON(s.cfg.Owner, s.cfg.Repo),
		},
	}
	if is.body != "" {
		m["body"] = is.body
	}
	return m
}

// --- issue and pull request comments ---

// readScopes are the permissions that allow reading issues, pull requests
// and their comments; either will do.
var readScopes = []string{scopeIssues, scopePullRequests}

func (s *Server) listComments(c *call) response {
	n, ok := c.intParam("n")
	if !ok || !s.st.exists(int(n)) {
		return c.notFound()
	}
	if resp, ok := c.require("read", readScopes...); !ok {
		return resp
	}
	var since time.Time
	if v := c.r.URL.Query().Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return c.validation("IssueComment", "since", "invalid", "")
		}
		since = t
	}
	var items []map[string]any
	for _, cm := range s.st.commentsOn(int(n)) {
		if !cm.updated.Before(since) {
			items = append(items, s.commentJSON(cm))
		}
	}
	return paginate(c, s, items)
}

// commentBody is the request of creating or editing a comment.
type commentBody struct {
	Body *string `json:"body"`
}

// checkBody applies GitHub's validation of a comment or issue body:
// resource is "IssueComment" or "Issue".
func (s *Server) checkBody(c *call, resource string, body *string, required bool) (response, bool) {
	if body == nil || *body == "" {
		if required {
			return c.validation(resource, "body", "missing_field", ""), false
		}
		return response{}, true
	}
	if utf8.RuneCountInString(*body) > s.cfg.MaxBodyChars {
		return c.validation(resource, "body", "custom",
			fmt.Sprintf("body is too long (maximum is %d characters)", s.cfg.MaxBodyChars)), false
	}
	return response{}, true
}

func (s *Server) createComment(c *call) response {
	n, ok := c.intParam("n")
	if !ok || !s.st.exists(int(n)) {
		return c.notFound()
	}
	if resp, ok := c.require("write", s.st.scope(int(n))); !ok {
		return resp
	}
	var req commentBody
	if resp, ok := c.decode(&req); !ok {
		return resp
	}
	if resp, ok := s.checkBody(c, "IssueComment", req.Body, true); !ok {
		return resp
	}
	cm := s.st.addComment(int(n), *req.Body, c.perms.author())
	if is := s.st.issues[int(n)]; is != nil {
		is.updated = cm.created
	}
	return jsonResponse(http.StatusCreated, s.commentJSON(cm))
}

func (s *Server) getComment(c *call) response {
	cm := s.commentParam(c)
	if cm == nil {
		return c.notFound()
	}
	if resp, ok := c.require("read", readScopes...); !ok {
		return resp
	}
	return jsonResponse(http.StatusOK, s.commentJSON(cm))
}

func (s *Server) commentParam(c *call) *commentState {
	id, ok := c.intParam("id")
	if !ok {
		return nil
	}
	return s.st.comment(id)
}

func (s *Server) editComment(c *call) response {
	cm := s.commentParam(c)
	if cm == nil {
		return c.notFound()
	}
	if resp, ok := c.require("write", s.st.scope(cm.issue)); !ok {
		return resp
	}
	var req commentBody
	if resp, ok := c.decode(&req); !ok {
		return resp
	}
	if resp, ok := s.checkBody(c, "IssueComment", req.Body, true); !ok {
		return resp
	}
	cm.Body = *req.Body
	cm.updated = s.st.tick()
	return jsonResponse(http.StatusOK, s.commentJSON(cm))
}

func (s *Server) deleteComment(c *call) response {
	cm := s.commentParam(c)
	if cm == nil {
		return c.notFound()
	}
	if resp, ok := c.require("write", s.st.scope(cm.issue)); !ok {
		return resp
	}
	cm.deleted = true
	return response{status: http.StatusNoContent}
}

// --- issues ---

func (s *Server) listIssues(c *call) response {
	if resp, ok := c.require("read", readScopes...); !ok {
		return resp
	}
	q := c.r.URL.Query()
	state := orDefault(q.Get("state"), "open")
	if state != "open" && state != "closed" && state != "all" {
		return c.validation("Issue", "state", "invalid", "")
	}
	var want []string
	if v := q.Get("labels"); v != "" {
		for _, l := range strings.Split(v, ",") {
			if l = strings.TrimSpace(l); l != "" {
				want = append(want, l)
			}
		}
	}
	var list []*issueState
	for _, is := range s.st.sortedIssues() {
		if (state == "all" || is.state == state) && hasLabels(is.labels, want) {
			list = append(list, is)
		}
	}
	if resp, ok := sortByTime(c, list, "created", "desc", issueTime); !ok {
		return resp
	}
	items := make([]map[string]any, len(list))
	for i, is := range list {
		items[i] = s.issueJSON(is)
	}
	return paginate(c, s, items)
}

// issueTime is an issue's or pull request's time for the sort key.
func issueTime(is *issueState, key string) time.Time {
	if key == "updated" {
		return is.updated
	}
	return is.created
}

// sortByTime orders a listing by the sort (created or updated) and
// direction (asc or desc) query parameters; ties keep number order.
func sortByTime(c *call, list []*issueState, defSort, defDir string, at func(*issueState, string) time.Time) (response, bool) {
	q := c.r.URL.Query()
	key, dir := orDefault(q.Get("sort"), defSort), orDefault(q.Get("direction"), defDir)
	if key != "created" && key != "updated" {
		return c.validation("Issue", "sort", "invalid", ""), false
	}
	if dir != "asc" && dir != "desc" {
		return c.validation("Issue", "direction", "invalid", ""), false
	}
	slices.SortStableFunc(list, func(a, b *issueState) int {
		d := at(a, key).Compare(at(b, key))
		if dir == "desc" {
			d = -d
		}
		return d
	})
	return response{}, true
}

// hasLabels says whether every wanted label is present; label names are
// case-insensitive on GitHub.
func hasLabels(have, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, w) }) {
			return false
		}
	}
	return true
}

func dedupLabels(labels []string) []string {
	var out []string
	for _, l := range labels {
		if l = strings.TrimSpace(l); l != "" && !hasLabels(out, []string{l}) {
			out = append(out, l)
		}
	}
	return out
}

// issueBody is the request of creating or editing an issue; nil fields
// were not sent.
type issueBody struct {
	Title  *string   `json:"title"`
	Body   *string   `json:"body"`
	State  *string   `json:"state"`
	Labels *[]string `json:"labels"`
}

func (s *Server) createIssue(c *call) response {
	if resp, ok := c.require("write", scopeIssues); !ok {
		return resp
	}
	var req issueBody
	if resp, ok := c.decode(&req); !ok {
		return resp
	}
	if req.Title == nil || strings.TrimSpace(*req.Title) == "" {
		return c.validation("Issue", "title", "missing_field", "")
	}
	if resp, ok := s.checkBody(c, "Issue", req.Body, false); !ok {
		return resp
	}
	var body string
	var labels []string
	if req.Body != nil {
		body = *req.Body
	}
	if req.Labels != nil {
		labels = *req.Labels
	}
	return jsonResponse(http.StatusCreated, s.issueJSON(s.st.addIssue(*req.Title, body, labels)))
}

func (s *Server) issueParam(c *call) *issueState {
	n, ok := c.intParam("n")
	if !ok {
		return nil
	}
	return s.st.issues[int(n)]
}

func (s *Server) getIssue(c *call) response {
	is := s.issueParam(c)
	if is == nil {
		return c.notFound()
	}
	if resp, ok := c.require("read", readScopes...); !ok {
		return resp
	}
	return jsonResponse(http.StatusOK, s.issueJSON(is))
}

func (s *Server) editIssue(c *call) response {
	is := s.issueParam(c)
	if is == nil {
		return c.notFound()
	}
	if resp, ok := c.require("write", s.st.scope(is.number)); !ok {
		return resp
	}
	var req issueBody
	if resp, ok := c.decode(&req); !ok {
		return resp
	}
	if req.Title != nil && strings.TrimSpace(*req.Title) == "" {
		return c.validation("Issue", "title", "missing_field", "")
	}
	if resp, ok := s.checkBody(c, "Issue", req.Body, false); !ok {
		return resp
	}
	if req.State != nil && *req.State != "open" && *req.State != "closed" {
		return c.validation("Issue", "state", "invalid", "")
	}
	now := s.st.tick()
	if req.Title != nil {
		is.title = *req.Title
	}
	if req.Body != nil {
		is.body = *req.Body
	}
	if req.Labels != nil {
		is.labels = dedupLabels(*req.Labels)
	}
	if req.State != nil && *req.State != is.state {
		is.state = *req.State
		is.closedAt = time.Time{}
		if is.state == "closed" {
			is.closedAt = now
		}
	}
	is.updated = now
	return jsonResponse(http.StatusOK, s.issueJSON(is))
}

// --- pull requests ---

func (s *Server) listPulls(c *call) response {
	if resp, ok := c.require("read", scopePullRequests); !ok {
		return resp
	}
	q := c.r.URL.Query()
	state := orDefault(q.Get("state"), "open")
	if state != "open" && state != "closed" && state != "all" {
		return c.validation("PullRequest", "state", "invalid", "")
	}
	// head is OWNER:BRANCH; a bare branch is taken to be in the base
	// repository's owner.
	var headOwner, headRef string
	if h := q.Get("head"); h != "" {
		if o, r, ok := strings.Cut(h, ":"); ok {
			headOwner, headRef = o, r
		} else {
			headOwner, headRef = s.cfg.Owner, h
		}
	}
	base := q.Get("base")
	var list []*issueState
	for _, is := range s.st.sortedIssues() {
		pr := is.pr
		if pr == nil || (state != "all" && is.state != state) ||
			(headRef != "" && (!strings.EqualFold(pr.HeadOwner, headOwner) || pr.HeadRef != headRef)) ||
			(base != "" && pr.BaseRef != base) {
			continue
		}
		list = append(list, is)
	}
	// GitHub's default direction is desc for sort=created (the default)
	// and asc otherwise.
	defDir := "desc"
	if k := q.Get("sort"); k != "" && k != "created" {
		defDir = "asc"
	}
	if resp, ok := sortByTime(c, list, "created", defDir, issueTime); !ok {
		return resp
	}
	items := make([]map[string]any, len(list))
	for i, is := range list {
		items[i] = s.pullJSON(is)
	}
	return paginate(c, s, items)
}

func (s *Server) getPull(c *call) response {
	is := s.issueParam(c)
	if is == nil || is.pr == nil {
		return c.notFound()
	}
	if resp, ok := c.require("read", scopePullRequests); !ok {
		return resp
	}
	return jsonResponse(http.StatusOK, s.pullJSON(is))
}

// --- GraphQL: the minimizeComment mutation only ---

var (
	subjectVar     = regexp.MustCompile(`subjectId\s*:\s*\$(\w+)`)
	subjectLiteral = regexp.MustCompile(`subjectId\s*:\s*"([^"]*)"`)
	classifierVar  = regexp.MustCompile(`classifier\s*:\s*\$(\w+)`)
	classifierLit  = regexp.MustCompile(`classifier\s*:\s*([A-Za-z_]+)`)
)

// classifiers are GraphQL's ReportedContentClassifiers.
var classifiers = []string{"SPAM", "ABUSE", "OFF_TOPIC", "OUTDATED", "DUPLICATE", "RESOLVED"}

// graphql answers a GraphQL request. GitHub answers GraphQL errors, even
// NOT_FOUND and FORBIDDEN, with HTTP 200 and an "errors" array.
func (s *Server) graphql(perms Permissions, body []byte) response {
	var req struct {
		Query     *string        `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Query == nil {
		return gqlError(nil, "", "A query attribute must be specified and must be a string.")
	}
	q := *req.Query
	if !strings.Contains(q, "minimizeComment") || strings.Contains(q, "unminimizeComment") {
		return gqlError(nil, "", "fakegithub answers only the minimizeComment mutation")
	}
	null := map[string]any{"minimizeComment": nil}

	var subject string
	if m := subjectVar.FindStringSubmatch(q); m != nil {
		subject, _ = req.Variables[m[1]].(string)
	} else if m := subjectLiteral.FindStringSubmatch(q); m != nil {
		subject = m[1]
	} else {
		subject, _ = req.Variables["id"].(string)
	}
	var classifier string
	if m := classifierVar.FindStringSubmatch(q); m != nil {
		classifier, _ = req.Variables[m[1]].(string)
	} else if m := classifierLit.FindStringSubmatch(q); m != nil {
		classifier = m[1]
	}
	if !slices.Contains(classifiers, classifier) {
		return gqlError(null, "", fmt.Sprintf("Argument 'classifier' on InputObject 'MinimizeCommentInput' has an invalid value (%s). Expected type 'ReportedContentClassifiers!'.", classifier))
	}

	var target *commentState
	for _, cm := range s.st.comments {
		if cm.NodeID == subject && !cm.deleted {
			target = cm
		}
	}
	if target == nil {
		return gqlError(null, "NOT_FOUND", fmt.Sprintf("Could not resolve to a node with the global id of '%s'", subject))
	}
	if perms.level(s.st.scope(target.issue)) < 2 {
		return gqlError(null, "FORBIDDEN", "Resource not accessible by integration")
	}
	target.Minimized = true
	target.MinimizedReason = strings.ReplaceAll(strings.ToLower(classifier), "_", "-")
	return jsonResponse(http.StatusOK, map[string]any{"data": map[string]any{
		"minimizeComment": map[string]any{"minimizedComment": map[string]any{
			"isMinimized": true, "minimizedReason": target.MinimizedReason,
		}},
	}})
}

// gqlError is a GraphQL error answer; data nil leaves "data" out, as for a
// query that could not be run at all.
func gqlError(data map[string]any, typ, msg string) response {
	e := map[string]any{"message": msg}
	if typ != "" {
		e["type"] = typ
		e["path"] = []string{"minimizeComment"}
	}
	out := map[string]any{"errors": []any{e}}
	if data != nil {
		out["data"] = data
	}
	return jsonResponse(http.StatusOK, out)
}
