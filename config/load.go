package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	yaml "go.yaml.in/yaml/v3"

	"github.com/capreport/capreport/internal/safefile"
)

// MaxFileBytes bounds .capreport.yaml: it comes from the repository, which
// may be an untrusted pull request.
const MaxFileBytes = 1 << 20

// maxErrors caps how many problems one Load reports, so that a file of
// garbage gives a readable error.
const maxErrors = 20

// Error is one problem in a configuration file, at a line.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem is the file as a whole
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Find returns the configuration file of a scanned root: root/.capreport.yaml
// (or .capreport.yml). When root is a file, its directory is searched.
// Whatever holds the name is returned, a symlink or a FIFO too, so that
// Load refuses it by name: a run that went on without it would price
// the repository on settings its author did not write.
func Find(root string) (string, bool) {
	dir := root
	if st, err := os.Stat(root); err == nil && !st.IsDir() {
		dir = filepath.Dir(root)
	}
	for _, name := range []string{FileName, ".capreport.yml"} {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// Load reads and parses the repository's configuration file at path. Every
// problem is an *Error naming path:line; several are joined with
// errors.Join. The file must be a regular file of at most MaxFileBytes:
// a symlink is refused, since in a pull request it may name any file of
// the runner, whose values the errors would then quote in a public log;
// a FIFO or device is refused before it is read, since reading it may
// never end.
func Load(path string) (*Config, error) { return load(path, false) }

// LoadOwn is Load for a file the person running capreport named outside
// the repository (--config): a symlink is followed, since they chose the
// file, but what it names must still be a regular file within the bound.
func LoadOwn(path string) (*Config, error) { return load(path, true) }

func load(path string, follow bool) (*Config, error) {
	data, err := safefile.ReadFile(path, MaxFileBytes, follow)
	var nr *safefile.NotRegularError
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &nr):
		return nil, &Error{File: path, Msg: safefile.Describe(nr.Mode) + "; capreport reads its configuration only from a regular file"}
	case errors.As(err, &tl):
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d bytes; a configuration file should be small", MaxFileBytes)}
	case err != nil:
		return nil, fmt.Errorf("reading configuration: %w", err)
	}
	return Parse(path, data)
}

// Parse parses the contents of a configuration file; file names it in
// errors and in Config.File.
func Parse(file string, data []byte) (*Config, error) {
	c := Default()
	c.File = file
	p := &parser{file: file}
	var root yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil // an empty file is the default configuration
		}
		return nil, p.yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: file, Line: extra.Line, Msg: "more than one YAML document; put the whole configuration in one"}
	} else if !errors.Is(err, io.EOF) {
		return nil, p.yamlError(err)
	}
	doc := &root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind == yaml.ScalarNode && doc.Tag == "!!null" {
		return c, nil
	}
	p.noAliases(doc)
	if len(p.errs) == 0 {
		p.top(doc, c)
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return c, nil
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// yamlError turns the YAML library's "yaml: line 3: ..." into file:3.
func (p *parser) yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, m[0]), ": ")
	}
	return &Error{File: p.file, Line: line, Msg: "not valid YAML: " + msg}
}

type parser struct {
	file string
	errs []error
}

func (p *parser) errf(n *yaml.Node, format string, args ...any) {
	if len(p.errs) >= maxErrors {
		return
	}
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// noAliases refuses anchors' aliases anywhere: nothing in the format needs
// them and they are how YAML bombs expand.
func (p *parser) noAliases(n *yaml.Node) {
	if n.Kind == yaml.AliasNode {
		p.errf(n, "YAML aliases (*name) are not supported in %s; write the value out", FileName)
		return
	}
	for _, c := range n.Content {
		p.noAliases(c)
	}
}

// mapping calls fn for each key of n in order, after checking that n is a
// mapping, that keys are strings and unique, and that each is allowed.
func (p *parser) mapping(n *yaml.Node, what string, allowed []string, fn func(key string, k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return
		}
		p.errf(n, "%s must be a mapping of keys to values", what)
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.errf(k, "%s: keys must be plain strings", what)
			continue
		}
		key := k.Value
		if !contains(allowed, key) {
			p.errf(k, "unknown key %q in %s; expected one of: %s", key, what, strings.Join(allowed, ", "))
			continue
		}
		if seen[key] {
			p.errf(k, "%s: key %q appears twice", what, key)
			continue
		}
		seen[key] = true
		fn(key, k, v)
	}
}

// repositorySources reads repository.sources, NAME: PATH mappings of
// GitOps sources of other repositories to directories of this one
// (--source's equivalent); a PATH must stay inside the repository.
func (p *parser) repositorySources(n *yaml.Node, c *Config) {
	if n.Kind != yaml.MappingNode {
		p.errf(n, "repository.sources must be a mapping of source names to paths")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		dir, ok := p.scalar(v, "repository.sources."+k.Value)
		if !ok {
			continue
		}
		clean := path.Clean(filepath.ToSlash(dir))
		if k.Kind != yaml.ScalarNode || k.Value == "" || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			p.errf(v, "repository.sources: %q must map a source name to a path inside the repository", k.Value)
			continue
		}
		c.RepositorySources = append(c.RepositorySources, SourceMapping{Name: k.Value, Path: clean, Line: v.Line})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// scalar returns a scalar's text; what names the key for the error.
func (p *parser) scalar(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errf(n, "%s must be a single value", what)
		return "", false
	}
	return n.Value, true
}

// strings accepts a list of scalars, or one scalar as a list of one.
func (p *parser) strings(n *yaml.Node, what string) []string {
	nodes := p.stringNodes(n, what)
	if nodes == nil {
		return nil
	}
	out := make([]string, 0, len(nodes))
	for _, c := range nodes {
		out = append(out, c.Value)
	}
	return out
}

// stringNodes is strings keeping each entry's node, and so its line.
func (p *parser) stringNodes(n *yaml.Node, what string) []*yaml.Node {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
		return []*yaml.Node{n}
	case yaml.SequenceNode:
		out := make([]*yaml.Node, 0, len(n.Content))
		for _, c := range n.Content {
			if _, ok := p.scalar(c, what+" entry"); ok {
				out = append(out, c)
			}
		}
		return out
	}
	p.errf(n, "%s must be a list of strings", what)
	return nil
}

func (p *parser) boolean(n *yaml.Node, what string) (bool, bool) {
	s, ok := p.scalar(n, what)
	if !ok {
		return false, false
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	p.errf(n, "%s: %q is not a boolean, expected true or false", what, s)
	return false, false
}

func (p *parser) top(n *yaml.Node, c *Config) {
	p.mapping(n, FileName, []string{"sources", "defaults", "workloads", "cluster", "checks", "failOn", "failOnDefaults", "repository", "fetch"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "fetch":
			if b, ok := p.boolean(v, "fetch"); ok {
				c.Fetch = Opt[bool]{Value: b, Set: true, Line: v.Line}
			}
		case "failOnDefaults":
			c.FailOnDefaults, _ = p.boolean(v, "failOnDefaults")
		case "repository":
			p.mapping(v, "repository", []string{"urls", "sources"}, func(key string, k, v *yaml.Node) {
				if key == "sources" {
					p.repositorySources(v, c)
					return
				}
				c.RepositoryURLs = append(c.RepositoryURLs, p.strings(v, "repository.urls")...)
			})
		case "sources":
			p.sources(v, c)
		case "defaults":
			p.mapping(v, "defaults", assumptionYAMLKeys(), func(key string, k, v *yaml.Node) {
				p.assumption(&c.Defaults, "defaults", key, v)
			})
		case "workloads":
			p.workloads(v, c)
		case "cluster":
			p.cluster(v, &c.Cluster)
		case "checks":
			p.checks(v, &c.Checks)
		case "failOn":
			if s, ok := p.scalar(v, "failOn"); ok {
				switch s {
				case FailOnError, FailOnWarning, FailOnNever:
					c.FailOn, c.FailOnLine = s, v.Line
				default:
					p.errf(v, "failOn: %q is not one of error, warning, never", s)
				}
			}
		}
	})
}

func assumptionYAMLKeys() []string {
	out := make([]string, len(AllKeys()))
	for i, k := range AllKeys() {
		out[i] = k.YAMLName()
	}
	return out
}

// assumption parses one assumption key; overload also takes a YAML list.
func (p *parser) assumption(a *Assumptions, what, yamlKey string, v *yaml.Node) {
	key, _ := keyForYAML(yamlKey)
	var raw string
	if key == KeyOverload && v.Kind == yaml.SequenceNode {
		raw = strings.Join(p.strings(v, what+"."+yamlKey), ",")
	} else {
		s, ok := p.scalar(v, what+"."+yamlKey)
		if !ok {
			return
		}
		raw = s
	}
	if err := a.Set(key, raw, v.Line); err != nil {
		p.errf(v, "%s.%s: %v", what, yamlKey, err)
	}
}

var sourceTypes = []string{"helm", "kustomize", "plain"}

func (p *parser) sources(n *yaml.Node, c *Config) {
	if n.Kind != yaml.SequenceNode {
		p.errf(n, "sources must be a list of sources (each with a path)")
		return
	}
	// seen maps path@valueSet to the line that listed it, across all
	// sources, so that distinctRenders can point at the earlier listing.
	seen := map[string]int{}
	for i, e := range n.Content {
		what := fmt.Sprintf("sources[%d]", i)
		src, base, sets, hasSets := p.sourceKeys(e, what)
		if e.Kind != yaml.MappingNode {
			continue
		}
		if src.Path == "" {
			p.errf(e, "%s: path is required (the chart, overlay or directory, relative to the scanned root)", what)
		}
		if !hasSets {
			src.ValueSets = []ValueSet{base}
		}
		for j, sn := range sets {
			src.ValueSets = append(src.ValueSets, p.valueSet(sn, fmt.Sprintf("%s.valueSets[%d]", what, j), base, len(sets) > 1))
		}
		p.distinctRenders(src, what, seen)
		if len(src.ValueSets) > 1 && src.Type != "" && src.Type != "helm" {
			p.errf(e, "%s: only Helm charts take value sets; a %s source renders one way", what, src.Type)
		}
		c.Sources = append(c.Sources, src)
	}
}

// sourceKeys reads one entry of sources. The value-set keys written on the
// source itself (name, values, set, ...) go to base, which is the source's
// only value set when it has no valueSets and what every one of its value
// sets starts from when it has; sets are those value sets' nodes, read
// later once base is complete. hasSets is true for a valueSets key even if
// it was invalid, so that the source does not fall back to base alone.
func (p *parser) sourceKeys(e *yaml.Node, what string) (src Source, base ValueSet, sets []*yaml.Node, hasSets bool) {
	src = Source{Line: e.Line}
	base.Line = e.Line
	p.mapping(e, what, []string{"path", "type", "name", "releaseName", "namespace", "values", "set", "valueSets"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "path":
			if s, ok := p.scalar(v, what+".path"); ok {
				src.Path = p.relPath(v, what+".path", s)
			}
		case "type":
			if s, ok := p.scalar(v, what+".type"); ok {
				if !contains(sourceTypes, s) {
					p.errf(v, "%s.type: %q is not one of helm, kustomize, plain", what, s)
				}
				src.Type = s
			}
		case "valueSets":
			hasSets = true
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				p.errf(v, "%s.valueSets must be a non-empty list of value sets", what)
				return
			}
			sets = v.Content
		default:
			p.valueSetKey(&base, what, key, v)
		}
	})
	return src, base, sets, hasSets
}

// valueSet reads one entry of a source's valueSets on top of base: release
// name and namespace override the source's, values and set add to them
// (the source's own come first). several says the source has more than one value set, which then
// need names to tell their renders apart.
func (p *parser) valueSet(sn *yaml.Node, what string, base ValueSet, several bool) ValueSet {
	vs := ValueSet{Name: "", ReleaseName: base.ReleaseName, Namespace: base.Namespace, Line: sn.Line,
		Values: append([]string(nil), base.Values...), Set: append([]string(nil), base.Set...)}
	p.mapping(sn, what, []string{"name", "releaseName", "namespace", "values", "set"}, func(key string, k, v *yaml.Node) {
		// valueSetKey validates the key as it would on a source; only the
		// field it sets is taken over.
		var own ValueSet
		p.valueSetKey(&own, what, key, v)
		switch key {
		case "name":
			vs.Name = own.Name
		case "releaseName":
			vs.ReleaseName = own.ReleaseName
		case "namespace":
			vs.Namespace = own.Namespace
		case "values":
			vs.Values = append(vs.Values, own.Values...)
		case "set":
			vs.Set = append(vs.Set, own.Set...)
		}
	})
	if vs.Name == "" && several {
		p.errf(sn, "%s: name is required when a source has several value sets (it tells the renders apart)", what)
	}
	if vs.Name == "" && base.Name != "" {
		vs.Name = base.Name
	}
	return vs
}

// distinctRenders reports each value set of src whose path@name an earlier
// one (of this source or another) already took, and records src's in seen:
// path@name is what names a render, so two alike could not be told apart.
// A source without a path has already been reported and is not compared.
func (p *parser) distinctRenders(src Source, what string, seen map[string]int) {
	for _, vs := range src.ValueSets {
		id := src.Path + "@" + vs.Name
		if prev, dup := seen[id]; dup && src.Path != "" {
			p.errf(&yaml.Node{Line: vs.Line}, "%s: path %q with value set %q is already listed at line %d; give each render a distinct name", what, src.Path, vs.Name, prev)
		}
		seen[id] = vs.Line
	}
}

func (p *parser) valueSetKey(vs *ValueSet, what, key string, v *yaml.Node) {
	switch key {
	case "name":
		if s, ok := p.scalar(v, what+".name"); ok {
			if !ValidValueSetName(s) {
				p.errf(v, "%s.name: %q may not contain '@', '/' or spaces", what, s)
			}
			vs.Name = s
		}
	case "releaseName":
		if s, ok := p.scalar(v, what+".releaseName"); ok {
			vs.ReleaseName = s
		}
	case "namespace":
		if s, ok := p.scalar(v, what+".namespace"); ok {
			vs.Namespace = s
		}
	case "values":
		for _, s := range p.strings(v, what+".values") {
			vs.Values = append(vs.Values, p.relPath(v, what+".values", s))
		}
	case "set":
		for _, s := range p.strings(v, what+".set") {
			if !strings.Contains(s, "=") {
				p.errf(v, "%s.set: %q is not a key=value pair", what, s)
				continue
			}
			vs.Set = append(vs.Set, s)
		}
	}
}

// relPath keeps paths inside the scanned root: the file may come from an
// untrusted pull request, and rendering must not read outside the root.
func (p *parser) relPath(n *yaml.Node, what, s string) string {
	if s == "" {
		p.errf(n, "%s: empty path", what)
		return ""
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(s)))
	if filepath.IsAbs(s) || strings.HasPrefix(s, "/") || clean == ".." || strings.HasPrefix(clean, "../") {
		p.errf(n, "%s: %q must be a path inside the scanned root, relative to it", what, s)
	}
	return clean
}

func (p *parser) workloads(n *yaml.Node, c *Config) {
	if n.Kind != yaml.SequenceNode {
		p.errf(n, "workloads must be a list of entries (namespace, kind, name globs and assumptions)")
		return
	}
	allowed := append([]string{"namespace", "kind", "name"}, assumptionYAMLKeys()...)
	allowed = append(allowed, "measured", "queries")
	for i, e := range n.Content {
		what := fmt.Sprintf("workloads[%d]", i)
		w := Workload{Line: e.Line}
		var measured *yaml.Node
		p.mapping(e, what, allowed, func(key string, k, v *yaml.Node) {
			switch key {
			case "measured":
				measured = v // after the values it records
			case "queries":
				p.queries(v, what, &w.Queries)
			case "namespace", "kind", "name":
				s, ok := p.scalar(v, what+"."+key)
				if !ok {
					return
				}
				if !doublestar.ValidatePattern(s) {
					p.errf(v, "%s.%s: %q is not a valid glob", what, key, s)
					return
				}
				switch key {
				case "namespace":
					w.Namespace = s
				case "kind":
					w.Kind = s
				default:
					w.Name = s
				}
			default:
				p.assumption(&w.Assumptions, what, key, v)
			}
		})
		if measured != nil {
			p.measured(measured, what, &w)
		}
		c.Workloads = append(c.Workloads, w)
	}
}

func (p *parser) queries(n *yaml.Node, what string, q *Queries) {
	p.mapping(n, what+".queries", []string{"requestRate", "consumerRate"}, func(key string, k, v *yaml.Node) {
		s, ok := p.scalar(v, what+".queries."+key)
		if !ok {
			return
		}
		if strings.TrimSpace(s) == "" {
			p.errf(v, "%s.queries.%s: empty query", what, key)
			return
		}
		if key == "requestRate" {
			q.RequestRate = s
		} else {
			q.ConsumerRate = s
		}
	})
}

func (p *parser) cluster(n *yaml.Node, cl *Cluster) {
	p.mapping(n, "cluster", []string{"syncPeriod", "tolerance", "downscaleStabilization", "cpuInitializationPeriod", "initialReadinessDelay", "kubeVersion", "apiVersions"}, func(key string, k, v *yaml.Node) {
		if key == "apiVersions" {
			cl.APIVersions = append(cl.APIVersions, p.strings(v, "cluster.apiVersions")...)
			return
		}
		s, ok := p.scalar(v, "cluster."+key)
		if !ok {
			return
		}
		var err error
		switch key {
		case "syncPeriod":
			err = setWith(&cl.SyncPeriod, s, v.Line, durationIn("cluster."+key, ParseDuration))
		case "tolerance":
			err = setWith(&cl.Tolerance, s, v.Line, numberIn("cluster."+key, ParseTolerance))
		case "downscaleStabilization":
			err = setWith(&cl.DownscaleStabilization, s, v.Line, durationIn("cluster."+key, parseWindow))
		case "cpuInitializationPeriod":
			err = setWith(&cl.CPUInitializationPeriod, s, v.Line, durationIn("cluster."+key, parseWindow))
		case "initialReadinessDelay":
			err = setWith(&cl.InitialReadinessDelay, s, v.Line, durationIn("cluster."+key, parseWindow))
		case "kubeVersion":
			err = setWith(&cl.KubeVersion, s, v.Line, ParseKubeVersion)
		}
		if err != nil {
			p.errf(v, "cluster.%s: %v", key, err)
		}
	})
}

// parseWindow is ParseDuration that also accepts zero, however it is
// written ("0", "0s", "0ms", "0.0"): a controller may run with no downscale
// stabilization or readiness delay.
func parseWindow(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if f, err := parseFinite(t); err == nil && f == 0 {
		return 0, nil
	}
	if d, err := time.ParseDuration(t); err == nil && d == 0 {
		return 0, nil
	}
	return ParseDuration(s)
}

var checkIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

func (p *parser) checks(n *yaml.Node, ch *Checks) {
	listed := map[string]checkListed{}
	p.mapping(n, "checks", []string{"include", "exclude", "allowIgnores"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "include", "exclude":
			for _, e := range p.stringNodes(v, "checks."+key) {
				p.checkID(key, v, e, ch, listed)
			}
		case "allowIgnores":
			if b, ok := p.boolean(v, "checks.allowIgnores"); ok {
				ch.AllowIgnores.set(b, v.Line)
			}
		}
	})
	sort.Strings(ch.Include)
	sort.Strings(ch.Exclude)
}

// checkListed is the list (include or exclude) a check ID was last seen in, and that list's line.
type checkListed struct {
	key  string
	line int
}

// checkID takes check ID e of list key ("include" or "exclude", at node v) into ch: an ID that is not
// well-formed is an error, as is one both included and excluded; ch.Lines keeps the line of its first
// mention.
func (p *parser) checkID(key string, v, e *yaml.Node, ch *Checks, listed map[string]checkListed) {
	id := e.Value
	if !checkIDRE.MatchString(id) {
		p.errf(v, "checks.%s: %q is not a check ID (lower-case words joined by '-', e.g. assumption-default)", key, id)
		return
	}
	if key == "include" {
		ch.Include = append(ch.Include, id)
	} else {
		ch.Exclude = append(ch.Exclude, id)
	}
	if prev, ok := listed[id]; ok && prev.key != key {
		p.errf(v, "checks: %q is both included and excluded (see line %d)", id, prev.line)
	}
	listed[id] = checkListed{key: key, line: v.Line}
	if _, ok := ch.Lines[id]; !ok {
		if ch.Lines == nil {
			ch.Lines = map[string]int{}
		}
		ch.Lines[id] = e.Line
	}
}

func measuredYAMLKeys() []string {
	out := make([]string, len(MeasuredKeys()))
	for i, k := range MeasuredKeys() {
		out[i] = k.YAMLName()
	}
	return out
}

// measured parses a workloads entry's measured: block into w; each record
// must belong to a value the same entry sets.
func (p *parser) measured(n *yaml.Node, what string, w *Workload) {
	p.mapping(n, what+".measured", measuredYAMLKeys(), func(key string, k, v *yaml.Node) {
		rwhat := what + ".measured." + key
		m := p.measurement(v, rwhat)
		if m == nil {
			return
		}
		ck, _ := keyForYAML(key)
		slot, set := w.Assumptions.measuredOpt(ck)
		if !set {
			p.errf(k, "%s: the entry sets no %s; a measurement must sit beside the value it measured", rwhat, key)
			return
		}
		*slot = m
	})
}

// measurement parses one record; nil after an error.
func (p *parser) measurement(n *yaml.Node, what string) *Measurement {
	m := &Measurement{Line: n.Line}
	seen := map[string]bool{}
	before := len(p.errs)
	p.mapping(n, what, []string{"query", "window", "quantile", "samples", "at"}, func(key string, k, v *yaml.Node) {
		s, ok := p.scalar(v, what+"."+key)
		if !ok {
			return
		}
		seen[key] = true
		if err := m.setField(key, s); err != nil {
			p.errf(v, "%s.%s: %v", what, key, err)
		}
	})
	if n.Kind != yaml.MappingNode {
		if len(p.errs) == before {
			p.errf(n, "%s must be a mapping with query, window, samples and at", what)
		}
		return nil
	}
	for _, req := range []string{"query", "window", "samples", "at"} {
		if !seen[req] {
			p.errf(n, "%s: %s is required", what, req)
		}
	}
	if len(p.errs) > before {
		return nil
	}
	return m
}
