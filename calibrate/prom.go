package calibrate

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// ClientOptions say how to reach a Prometheus server.
type ClientOptions struct {
	URL string
	// Token is sent as a bearer token; User and Password as basic auth
	// (only one of the two: the token wins).
	Token, User, Password string
	CAFile                string // PEM bundle to trust instead of the system's
	Insecure              bool   // skip TLS verification
	Timeout               time.Duration
}

// NewClient returns the Prometheus HTTP API as a Source: each query bound
// by o.Timeout, each answer by MaxAnswerBytes, MaxSeries and MaxSamples.
func NewClient(o ClientOptions) (Source, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http or https URL", o.URL)
	}
	tlsCfg := &tls.Config{InsecureSkipVerify: o.Insecure} //nolint:gosec // the user's --insecure-skip-tls-verify
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no PEM certificate", o.CAFile)
		}
		tlsCfg.RootCAs = pool
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tlsCfg
	tr.Proxy = nil // the server is named by --prometheus, not the environment
	return &client{http: &http.Client{Transport: &authTransport{next: tr, o: o}}, base: u, timeout: o.Timeout,
		lim: limits{bytes: MaxAnswerBytes, series: MaxSeries, samples: MaxSamples}}, nil
}

type authTransport struct {
	next http.RoundTripper
	o    ClientOptions
}

func (t *authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	switch {
	case t.o.Token != "":
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+t.o.Token)
	case t.o.User != "":
		r = r.Clone(r.Context())
		r.SetBasicAuth(t.o.User, t.o.Password)
	}
	return t.next.RoundTrip(r)
}

// client asks the query and query_range endpoints as client_golang's v1
// API does (a form POST, then GET where the server refuses POST), and
// reads each answer as a stream (answer.go): client_golang reads a whole
// answer into memory, copies it twice and makes a map per series, about
// fifteen times its size for one of many small series.
type client struct {
	http    *http.Client
	base    *url.URL
	timeout time.Duration // each query's bound (0: none), also asked of the server
	lim     limits
}

func (c *client) Query(ctx context.Context, q string, ts time.Time, each SeriesFunc) error {
	args := url.Values{"query": {q}}
	if !ts.IsZero() {
		args.Set("time", formatTime(ts))
	}
	return c.do(ctx, "/api/v1/query", args, model.ValVector, each)
}

func (c *client) QueryRange(ctx context.Context, q string, r v1.Range, each SeriesFunc) error {
	args := url.Values{"query": {q}, "start": {formatTime(r.Start)}, "end": {formatTime(r.End)},
		"step": {strconv.FormatFloat(r.Step.Seconds(), 'f', -1, 64)}}
	return c.do(ctx, "/api/v1/query_range", args, model.ValMatrix, each)
}

// formatTime is client_golang's: seconds since the epoch.
func formatTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.Unix())+float64(t.Nanosecond())/1e9, 'f', -1, 64)
}

func (c *client) do(ctx context.Context, endpoint string, args url.Values, want model.ValueType, each SeriesFunc) error {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
		args.Set("timeout", c.timeout.String())
	}
	resp, err := c.send(ctx, http.MethodPost, endpoint, args)
	if err == nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented) {
		resp.Body.Close()
		resp, err = c.send(ctx, http.MethodGet, endpoint, args)
	}
	if err == nil {
		err = c.read(resp, want, each)
		resp.Body.Close()
	}
	return c.explain(ctx, err)
}

func (c *client) send(ctx context.Context, method, endpoint string, args url.Values) (*http.Response, error) {
	u := *c.base
	u.Path = path.Join(u.Path, endpoint)
	var body io.Reader
	if method == http.MethodGet {
		u.RawQuery = args.Encode()
	} else {
		body = strings.NewReader(args.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header["Idempotency-Key"] = nil // a POST the transport may retry, as client_golang's
	}
	return c.http.Do(req)
}

// read reads an answer as client_golang did: a status other than 2xx, 400
// and 422 (Prometheus's error answers) says the error; else the body does.
func (c *client) read(resp *http.Response, want model.ValueType, each SeriesFunc) error {
	code := resp.StatusCode
	apiError := code == http.StatusBadRequest || code == http.StatusUnprocessableEntity
	switch {
	case code/100 == 4 && !apiError:
		return &v1.Error{Type: v1.ErrClient, Msg: fmt.Sprintf("client error: %d", code)}
	case code/100 == 5:
		return &v1.Error{Type: v1.ErrServer, Msg: fmt.Sprintf("server error: %d", code)}
	case code/100 != 2 && !apiError, code == http.StatusNoContent:
		return &v1.Error{Type: v1.ErrBadResponse, Msg: fmt.Sprintf("bad response code %d", code)}
	}
	status, err := readAnswer(newBoundedBody(resp.Body, c.lim.bytes), want, c.lim, each)
	if err == nil && apiError && status == "success" {
		return &v1.Error{Type: v1.ErrBadResponse, Msg: "inconsistent body for response code"}
	}
	return err
}

// ErrUnauthorized is a query the server refused for its credentials.
var ErrUnauthorized = errors.New("the server refused the credentials (set CAPREPORT_PROMETHEUS_TOKEN, or CAPREPORT_PROMETHEUS_USER and CAPREPORT_PROMETHEUS_PASSWORD)")

// explain turns the client's errors into ones that say what to do.
func (c *client) explain(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within --timeout %s: %w", c.timeout, err)
	}
	var ae *v1.Error
	if errors.As(err, &ae) && (strings.Contains(ae.Msg, "401") || strings.Contains(ae.Msg, "403")) {
		return fmt.Errorf("%s: %w", ae.Msg, ErrUnauthorized)
	}
	if errors.As(err, &ae) && ae.Type == v1.ErrServer {
		return fmt.Errorf("%s (the server failed; try again, or a smaller --since): %w", ae.Msg, err)
	}
	return err
}
