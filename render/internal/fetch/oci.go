package fetch

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"

	"helm.sh/helm/v3/pkg/registry"
)

// fetchOCI pulls <RepoURL>/<Name> from an OCI registry with Helm's
// registry client, as Helm's downloader does for oci:// dependencies: an
// exact version is the tag; a constraint picks the highest matching tag
// (registry.GetTagMatchingVersionOrConstraint); a digest pins the
// manifest. oras verifies every blob against its descriptor's digest.
func (f *Fetcher) fetchOCI(ref Ref) (*Chart, error) {
	base := strings.TrimSuffix(strings.TrimPrefix(ref.RepoURL, "oci://"), "/")
	name := base
	if ref.Name != "" {
		name = base + "/" + ref.Name
	}
	key := "oci\x00" + name + "\x00" + ref.Version + "\x00" + ref.Tag + "\x00" + ref.Digest
	pinned := ref.Digest != "" || exactVersion(ref.Version)
	if pinned {
		if c, ok := f.fromCache(key, ""); ok {
			return c, nil
		}
	}
	o := &op{limit: f.lim.MaxArchiveBytes}
	client, err := f.registryClient(o, name)
	if err != nil {
		return nil, &Error{Kind: Failed, Ref: ref.String(), Err: err}
	}
	tag, err := f.ociTag(client, o, name, ref)
	if err != nil {
		if c, ok := f.fromCache(key, ""); ok {
			return c, nil // offline with a warm cache
		}
		return nil, err
	}
	target := name + ":" + tag
	if ref.Digest != "" {
		target = name + "@" + ref.Digest
	}
	res, err := client.Pull(target, registry.PullOptWithChart(true))
	if err != nil {
		if c, ok := f.fromCache(key, ""); ok {
			return c, nil
		}
		return nil, o.classify("oci://"+target, err)
	}
	if ref.Digest != "" && res.Manifest.Digest != ref.Digest {
		return nil, &Error{Kind: Digest, Ref: ref.String(), Err: fmt.Errorf("manifest digest is %s, want %s", res.Manifest.Digest, ref.Digest)}
	}
	d, err := f.cache.Put(res.Chart.Data)
	if err == nil {
		_ = f.cache.SetRef(key, d)
	}
	v := tag
	if res.Chart.Meta != nil {
		v = res.Chart.Meta.Version
	}
	return &Chart{Data: res.Chart.Data, Version: v, Digest: d}, nil
}

// ociTag chooses the tag to pull.
func (f *Fetcher) ociTag(client *registry.Client, o *op, name string, ref Ref) (string, error) {
	if ref.Digest != "" || exactVersion(ref.Version) {
		return strings.ReplaceAll(ref.Version, "+", "_"), nil
	}
	if ref.Version == "" && ref.Tag != "" {
		return ref.Tag, nil
	}
	tags, err := client.Tags(name)
	if err != nil {
		return "", o.classify("oci://"+name, err)
	}
	v := ref.Version
	if v == "" {
		v = "*"
	}
	tag, err := registry.GetTagMatchingVersionOrConstraint(tags, v)
	if err != nil {
		return "", &Error{Kind: Failed, Ref: ref.String(), Err: err}
	}
	return tag, nil
}

// registryClient is Helm's registry client over the guarded HTTP client,
// plain HTTP for a loopback registry, credentials from AuthEnv.
func (f *Fetcher) registryClient(o *op, name string) (*registry.Client, error) {
	opts := []registry.ClientOption{
		registry.ClientOptHTTPClient(f.client(o)),
		registry.ClientOptWriter(io.Discard),
		registry.ClientOptEnableCache(true),
	}
	host, _, _ := strings.Cut(name, "/")
	if u, err := url.Parse("oci://" + name); err == nil {
		host = u.Host
	}
	if isLoopback(host) {
		opts = append(opts, registry.ClientOptPlainHTTP())
	}
	if c, ok := ociCredential(f.auth, "oci://"+name); ok {
		opts = append(opts, registry.ClientOptBasicAuth(c.username, c.password))
	}
	return registry.NewClient(opts...)
}

// isLoopback is a host on this machine: a registry there is spoken to in
// plain HTTP, as Docker treats 127.0.0.0/8 as an insecure registry.
func isLoopback(host string) bool {
	h := host
	if sh, _, err := net.SplitHostPort(host); err == nil {
		h = sh
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
