package calibrate

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
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

// NewClient returns the Prometheus HTTP API as a Source, each query bound
// by o.Timeout.
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
	c, err := api.NewClient(api.Config{Address: o.URL, RoundTripper: &authTransport{next: tr, o: o}})
	if err != nil {
		return nil, err
	}
	return &timeoutSource{api: v1.NewAPI(c), timeout: o.Timeout}, nil
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

// timeoutSource bounds each query by timeout (0: no bound), and asks the
// server for the same bound.
type timeoutSource struct {
	api     v1.API
	timeout time.Duration
}

func (s *timeoutSource) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.timeout)
}

func (s *timeoutSource) opts(opts []v1.Option) []v1.Option {
	if s.timeout > 0 {
		opts = append(opts, v1.WithTimeout(s.timeout))
	}
	return opts
}

func (s *timeoutSource) Query(ctx context.Context, q string, ts time.Time, opts ...v1.Option) (model.Value, v1.Warnings, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	v, w, err := s.api.Query(ctx, q, ts, s.opts(opts)...)
	return v, w, s.explain(ctx, err)
}

func (s *timeoutSource) QueryRange(ctx context.Context, q string, r v1.Range, opts ...v1.Option) (model.Value, v1.Warnings, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	v, w, err := s.api.QueryRange(ctx, q, r, s.opts(opts)...)
	return v, w, s.explain(ctx, err)
}

// ErrUnauthorized is a query the server refused for its credentials.
var ErrUnauthorized = errors.New("the server refused the credentials (set CAPREPORT_PROMETHEUS_TOKEN, or CAPREPORT_PROMETHEUS_USER and CAPREPORT_PROMETHEUS_PASSWORD)")

// explain turns the client's errors into ones that say what to do.
func (s *timeoutSource) explain(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within --timeout %s: %w", s.timeout, err)
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
