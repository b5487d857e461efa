package fakegithub

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// author is the login the token's writes carry.
func (p Permissions) author() string {
	if p.Login != "" {
		return p.Login
	}
	return orDefault(p.App, botLogin)
}

// intParam is a positive integer path parameter such as an issue number.
func (c *call) intParam(name string) (int64, bool) {
	n, err := strconv.ParseInt(c.params[name], 10, 64)
	return n, err == nil && n > 0
}

func (p Permissions) level(scope string) int {
	v := map[string]string{scopePullRequests: p.PullRequests, scopeIssues: p.Issues, scopeContents: p.Contents}[scope]
	switch v {
	case "write":
		return 2
	case "read":
		return 1
	}
	return 0
}

// require answers 403 unless the token has access ("read" or "write") in
// one of the scopes. The header lists each accepted alternative, separated
// by "; ", as GitHub does.
func (c *call) require(access string, scopes ...string) (response, bool) {
	need := 1
	if access == "write" {
		need = 2
	}
	alts := make([]string, len(scopes))
	for i, sc := range scopes {
		if c.perms.level(sc) >= need {
			return response{}, true
		}
		alts[i] = sc + "=" + access
	}
	resp := errorJSON(http.StatusForbidden, "Resource not accessible by integration", c.doc)
	resp.header = http.Header{"X-Accepted-Github-Permissions": {strings.Join(alts, "; ")}}
	return resp, false
}

// decode reads the JSON request body into v. A value of the wrong JSON
// type is 422 with GitHub's wording; malformed JSON was refused earlier.
func (c *call) decode(v any) (response, bool) {
	err := json.Unmarshal(c.body, v)
	if err == nil {
		return response{}, true
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return c.unprocessable("Invalid request.\n\nThe request body must be a JSON object."), false
		}
		return c.unprocessable(fmt.Sprintf("Invalid request.\n\nFor 'properties/%s', a JSON %s is not %s.", field, te.Value, jsonKind(te.Type.Kind().String()))), false
	}
	return errorJSON(http.StatusBadRequest, "Problems parsing JSON", c.doc), false
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return "a number"
}

func (c *call) notFound() response { return notFound(c.doc) }

// unprocessable is a 422 with only a message, as the Git Data API answers.
func (c *call) unprocessable(msg string) response {
	return errorJSON(http.StatusUnprocessableEntity, msg, c.doc)
}

// validation is GitHub's 422 "Validation Failed" with one error entry.
func (c *call) validation(resource, field, code, msg string) response {
	e := map[string]string{"resource": resource, "field": field, "code": code}
	if msg != "" {
		e["message"] = msg
	}
	return jsonResponse(http.StatusUnprocessableEntity, map[string]any{
		"message":           "Validation Failed",
		"errors":            []any{e},
		"documentation_url": c.doc,
	})
}

func notFound(doc string) response {
	return errorJSON(http.StatusNotFound, "Not Found", doc)
}

func errorJSON(status int, msg, doc string) response {
	return jsonResponse(status, map[string]string{"message": msg, "documentation_url": doc})
}

func jsonResponse(status int, v any) response {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // GitHub sends "<" and ">" in bodies as they are
	if err := enc.Encode(v); err != nil {
		panic("fakegithub: " + err.Error()) // only our own maps and slices are encoded
	}
	return response{status: status, body: bytes.TrimSuffix(buf.Bytes(), []byte("\n"))}
}

// page is the pagination of a listing: GitHub's per_page (default 30, at
// most 100) and page (from 1).
type page struct{ number, size int }

func (c *call) page() page {
	q := c.r.URL.Query()
	p := page{number: 1, size: 30}
	if n, err := strconv.Atoi(q.Get("per_page")); err == nil && n > 0 {
		p.size = min(n, 100)
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 {
		p.number = n
	}
	return p
}

// paginate answers one page of items with GitHub's Link header: prev,
// next, last and first, each the request's own URL with page replaced;
// only the relations that apply, and no header when everything fits on
// one page.
func paginate[T any](c *call, s *Server, items []T) response {
	p := c.page()
	last := max(1, (len(items)+p.size-1)/p.size)
	from := min((p.number-1)*p.size, len(items))
	to := min(from+p.size, len(items))
	out := make([]any, 0, to-from)
	for _, it := range items[from:to] {
		out = append(out, it)
	}
	resp := jsonResponse(http.StatusOK, out)

	link := func(n int, rel string) string {
		q := c.r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		u := url.URL{Path: c.r.URL.Path, RawQuery: q.Encode()}
		return fmt.Sprintf("<%s%s>; rel=%q", strings.TrimSuffix(s.ServerURL, "/"), u.String(), rel)
	}
	var links []string
	if p.number > 1 {
		links = append(links, link(p.number-1, "prev"))
	}
	if p.number < last {
		links = append(links, link(p.number+1, "next"), link(last, "last"))
	}
	if p.number > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		resp.header = http.Header{"Link": {strings.Join(links, ", ")}}
	}
	return resp
}

// orDefault returns v, or def when v is empty.
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
