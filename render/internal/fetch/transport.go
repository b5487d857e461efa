package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// op is one fetch operation's HTTP state: the first limit breach or
// refusal its transport saw, kept because the Helm SDK and oras wrap
// errors in ways that lose their type.
type op struct {
	mu     sync.Mutex
	breach error
	limit  int64 // body cap of this operation
}

func (o *op) record(err error) error {
	o.mu.Lock()
	if o.breach == nil {
		o.breach = err
	}
	o.mu.Unlock()
	return err
}

// classify prefers the breach the transport recorded over err.
func (o *op) classify(ref string, err error) error {
	o.mu.Lock()
	b := o.breach
	o.mu.Unlock()
	if b != nil {
		return wrap(ref, b)
	}
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(fmt.Sprint(err), "Client.Timeout exceeded") {
		return &Error{Kind: Limit, Ref: ref, Err: fmt.Errorf("timed out: %w", err)}
	}
	return wrap(ref, err)
}

// guard is the RoundTripper every request goes through: http and https
// only, credentials added for their own URL prefix, bodies cut at the
// operation's cap and the run's budget.
type guard struct {
	base http.RoundTripper
	op   *op
	lim  Limits
	auth []credential
}

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return nil, g.op.record(&unsafeError{fmt.Sprintf("scheme %q is not fetched (http, https and oci only)", s)})
	}
	if err := g.checkRedirect(req); err != nil {
		return nil, err
	}
	if !g.lim.Deadline.IsZero() && !time.Now().Before(g.lim.Deadline) {
		return nil, g.op.record(&limitError{"the run's fetch time limit is used up"})
	}
	req = req.Clone(req.Context())
	if c, ok := matchCredential(g.auth, req.URL.String()); ok && req.Header.Get("Authorization") == "" {
		req.SetBasicAuth(c.username, c.password)
	}
	var cancel context.CancelFunc = func() {}
	if !g.lim.Deadline.IsZero() {
		var ctx context.Context
		ctx, cancel = context.WithDeadline(req.Context(), g.lim.Deadline)
		req = req.WithContext(ctx)
	}
	resp, err := g.base.RoundTrip(req)
	if err != nil {
		cancel()
		return nil, err
	}
	limit := g.op.limit
	if a := g.lim.Budget; a != nil && a.Load() < limit {
		limit = a.Load()
	}
	if resp.ContentLength > limit {
		resp.Body.Close()
		cancel()
		return nil, g.op.record(&limitError{fmt.Sprintf("%s is %d bytes, over the %d-byte limit", req.URL.Redacted(), resp.ContentLength, limit)})
	}
	resp.Body = &cappedBody{rc: resp.Body, left: limit, op: g.op, budget: g.lim.Budget, url: req.URL.Redacted(), cancel: cancel}
	return resp, nil
}

// checkRedirect refuses a redirect to another scheme or from https down
// to http. Go's client hands a redirected request to the transport with
// the response that caused it, so the rule holds whichever client (Helm's
// getter, oras) follows the redirect.
func (g *guard) checkRedirect(req *http.Request) error {
	if req.Response == nil || req.Response.Request == nil {
		return nil
	}
	prev := req.Response.Request.URL
	if prev.Scheme == "https" && req.URL.Scheme != "https" {
		return g.op.record(&unsafeError{fmt.Sprintf("%s redirects from https to %s; refused", prev.Redacted(), req.URL.Redacted())})
	}
	if prev.Host != req.URL.Host {
		req.Header.Del("Authorization") // Helm's pass-credentials default: not to another host
	}
	return nil
}

// cappedBody fails a read past its cap and charges the run's budget.
type cappedBody struct {
	rc     io.ReadCloser
	left   int64
	op     *op
	budget *atomic.Int64
	url    string
	cancel context.CancelFunc
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, b.op.record(&limitError{fmt.Sprintf("%s is larger than the download limit", b.url)})
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.budget != nil {
		b.budget.Add(-int64(n))
	}
	if b.left < 0 {
		return n, b.op.record(&limitError{fmt.Sprintf("%s is larger than the download limit", b.url)})
	}
	return n, err
}

func (b *cappedBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

// client returns an HTTP client for one operation with a body cap.
func (f *Fetcher) client(o *op) *http.Client {
	base := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		TLSHandshakeTimeout:   f.lim.RequestTimeout,
		ResponseHeaderTimeout: f.lim.RequestTimeout,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
	}
	return &http.Client{
		Transport: &guard{base: base, op: o, lim: f.lim, auth: f.auth},
		Timeout:   f.lim.RequestTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			prev := via[len(via)-1].URL
			if s := req.URL.Scheme; s != "http" && s != "https" {
				return o.record(&unsafeError{fmt.Sprintf("%s redirects to %s, another scheme; refused", prev.Redacted(), req.URL.Redacted())})
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		},
	}
}

// ctx bounds one operation by the run's deadline.
func (f *Fetcher) ctx() (context.Context, context.CancelFunc) {
	if f.lim.Deadline.IsZero() {
		return context.WithCancel(context.Background())
	}
	return context.WithDeadline(context.Background(), f.lim.Deadline)
}
