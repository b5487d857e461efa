package flux

import (
	"fmt"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/gitops/internal/sourceroot"
	"github.com/capreport/capreport/render/internal/chartspec"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/valuesfrom"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Flux v1's Helm Operator (fluxcd/helm-operator, archived, still found in
// repositories): a helm.fluxcd.io/v1 HelmRelease installs a chart from a
// git repository path (chart.git, chart.path) or a Helm repository
// (chart.repository, chart.name), with valuesFrom merged in order and
// spec.values over them; the release is named namespace-name unless
// spec.releaseName says otherwise, the namespace being targetNamespace when
// set.

// HelmOperatorRelease renders the chart of a Helm Operator release.
func (g *Run) HelmOperatorRelease(o *object.Object) *Expansion {
	e := &Expansion{}
	chart := yamldoc.MapAt(o.Doc, "spec", "chart")
	if repo := yamldoc.Str(chart, "repository"); repo != "" {
		e.Findings = append(e.Findings, object.NotFollowed(o, fmt.Sprintf("chart %q version %q comes from the Helm repository %s, which capreport does not fetch", yamldoc.Str(chart, "name"), yamldoc.Str(chart, "version"), repo)))
		return e
	}
	git := yamldoc.Str(chart, "git")
	if git == "" {
		e.Findings = append(e.Findings, object.Finding(o, check.GitOpsReference, check.SeverityError, "spec.chart names neither git nor repository"))
		return e
	}
	if !g.repoURLs.Matches(git) {
		e.Findings = append(e.Findings, object.NotFollowed(o, fmt.Sprintf("its chart is in %s; %s", g.repoURLs.Decision(git), sourceroot.NotThisRepo(git))))
		return e
	}
	rel, bad := sourceroot.Path(g.repo, yamldoc.Str(chart, "path"))
	if bad != "" {
		e.Findings = append(e.Findings, object.Finding(o, check.GitOpsReference, check.SeverityError, "chart "+bad))
		return e
	}
	ns := yamldoc.Str(o.Doc, "spec", "targetNamespace")
	if ns == "" {
		ns = objNamespace(o)
	}
	name := yamldoc.Str(o.Doc, "spec", "releaseName")
	if name == "" {
		name = ns + "-" + o.Name
	}
	vals, fs, partial, miss := g.helmOperatorValues(o, rel)
	e.LookupMiss = miss
	e.Outs = append(e.Outs, g.renderRelease(o, rel, chartspec.Values{ReleaseName: name, Namespace: ns}, vals, fs, partial))
	return e
}

// helmOperatorValues merges valuesFrom (ConfigMap and Secret keys, files
// of the chart) in order, then spec.values.
func (g *Run) helmOperatorValues(o *object.Object, chartRel string) (map[string]any, []check.Finding, bool, bool) {
	result := map[string]any{}
	var findings []check.Finding
	partial, miss := false, false
	unread := 0
	refs, _ := yamldoc.Dig(o.Doc, "spec", "valuesFrom").([]any)
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		data, what, optional, found := g.helmOperatorRef(o, ref, chartRel)
		if !found {
			miss = miss || what != ""
			if !optional {
				partial = true
				findings = append(findings, object.Finding(o, check.GitOpsReference, check.SeverityWarning, what+"; rendered without those values"))
			}
			continue
		}
		if g.valuesFrom.Spend(len(data)) != nil {
			unread++
			continue
		}
		vals, err := g.valuesFrom.Document(data)
		if err != nil {
			findings = append(findings, object.Finding(o, check.GitOpsReference, check.SeverityError, fmt.Sprintf("valuesFrom: %v", err)))
			continue
		}
		result = chartspec.MergeMaps(result, vals)
	}
	if unread > 0 {
		partial = true
		findings = append(findings, valuesfrom.BudgetFinding(o, unread))
	}
	if v := yamldoc.MapAt(o.Doc, "spec", "values"); v != nil {
		result = chartspec.MergeMaps(result, v)
	}
	return result, findings, partial, miss
}

// helmOperatorRef reads one valuesFrom entry; what says why it was not found.
func (g *Run) helmOperatorRef(o *object.Object, ref map[string]any, chartRel string) (string, string, bool, bool) {
	for kind, field := range map[string]string{"ConfigMap": "configMapKeyRef", "Secret": "secretKeyRef"} {
		kr := yamldoc.MapAt(ref, field)
		if kr == nil {
			continue
		}
		optional, _ := kr["optional"].(bool)
		ns, key := yamldoc.Str(kr, "namespace"), yamldoc.Str(kr, "key")
		if ns == "" {
			ns = objNamespace(o)
		}
		if key == "" {
			key = "values.yaml"
		}
		data, ok := g.configData(kind, ns, yamldoc.Str(kr, "name"))
		if v, has := data[key]; ok && has {
			return v, "", optional, true
		}
		return "", fmt.Sprintf("valuesFrom %s %s/%s key %q is not among the rendered objects", kind, ns, yamldoc.Str(kr, "name"), key), optional, false
	}
	if fr := yamldoc.MapAt(ref, "chartFileRef"); fr != nil {
		optional, _ := fr["optional"].(bool)
		data, err := g.repo.ReadFile(g.repo.Abs(chartRel + "/" + yamldoc.Str(fr, "path")))
		if err != nil {
			return "", fmt.Sprintf("valuesFrom chartFileRef %q: %v", yamldoc.Str(fr, "path"), err), optional, false
		}
		return string(data), "", optional, true
	}
	if er := yamldoc.MapAt(ref, "externalSourceRef"); er != nil {
		optional, _ := er["optional"].(bool)
		return "", fmt.Sprintf("valuesFrom externalSourceRef %s is remote; capreport does not fetch it", yamldoc.Str(er, "url")), optional, false
	}
	return "", "valuesFrom entry names no source", false, false
}
