// Package check is the one home of capreport's checks: the stable ID of
// every finding any layer raises (render, analyze, the ledger), the
// severities, and the registry the SARIF rules, the README's table,
// `capreport checks` and `capreport explain` are printed from. It imports
// nothing of capreport's, so every layer and every renderer can use it.
package check

import (
	"errors"
	"fmt"
	"slices"
)

// Severities of a finding, shared by every layer so that a report never
// mixes spellings.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Stable check IDs of the findings render raises (Finding.Check). Never
// rename one: reports, SARIF rules and config include/exclude lists use
// them.
const (
	RenderFailed          = "render-failed"            // a source failed to render (template error, krusty error, ...)
	RenderPanic           = "render-panic"             // an internal panic, recovered, for one source
	RenderTimeout         = "render-timeout"           // a source did not finish within Options.SourceTimeout
	RenderCancelled       = "render-cancelled"         // the context ended while a source rendered
	RemoteBase            = "remote-base"              // a kustomization refers to a URL or git repository
	ExecFunction          = "exec-function"            // a kustomization configures an exec/container/starlark function
	KustomizePlugin       = "kustomize-plugin"         // a plugin form capreport does not run
	HelmChartRemote       = "helm-chart-remote"        // a helmCharts entry whose chart is not vendored
	HelmDependencyMissing = "helm-dependency-missing"  // Chart.yaml declares a dependency charts/ does not vendor
	PathEscape            = "path-escape"              // a path leaves the repository root
	SymlinkEscape         = "symlink-escape"           // a symlink points outside the repository
	FileTooLarge          = "file-too-large"           // a file over Options.MaxFileBytes
	TooManyObjects        = "too-many-objects"         // a source over Options.MaxObjects
	YAMLAliasBomb         = "yaml-alias-bomb"          // YAML aliases that expand beyond the budget
	YAMLInvalid           = "yaml-invalid"             // a plain YAML document that does not decode
	NotAnObject           = "not-an-object"            // a document without apiVersion or kind
	SourceMissing         = "source-missing"           // an explicit source path that does not exist
	GitOpsNotFollowed     = "gitops-not-followed"      // a Flux or Argo CD object capreport cannot follow offline
	GitOpsReference       = "gitops-reference-missing" // a ConfigMap, Secret, source or chart a GitOps object names is not in the render
	GitOpsSubstitution    = "gitops-substitution"      // a Flux postBuild variable left unresolved, or a substitution refused
	GitOpsCycle           = "gitops-cycle"             // GitOps objects that deliver each other
	GitOpsLimit           = "gitops-limit"             // more GitOps objects, or a deeper chain, than capreport follows
	GitOpsWithheld        = "gitops-withheld"          // autoscalers beneath a GitOps object whose build failed
	GitOpsUnappliedRoot   = "gitops-unapplied-root"    // a Flux Kustomization nothing applies, beneath a path another builds without it
	DuplicateDelivery     = "duplicate-delivery"       // one autoscaler delivered by two chains
	PartialRender         = "partial-render"           // a source rendered without an entry it refers to
	SchemaRef             = "schema-ref-outside"       // a chart's values schema refers to a URL or file outside it
	YAMLEncoding          = "yaml-encoding"            // a plain YAML file in UTF-16 or with CR-only line breaks, converted
	YAMLDuplicateKey      = "yaml-duplicate-key"       // a document defines one mapping key twice
	HelmKeysEd25519       = "helm-keys-ed25519"        // a chart's generated keys made as ed25519, not Helm's RSA
)

// Check IDs of fetching.
const (
	FetchFailed = "fetch-failed" // a chart or base could not be downloaded (unreachable, not found, refused credentials)
	FetchLimit  = "fetch-limit"  // a download broke a size, file-count, dependency-count or time limit
	FetchUnsafe = "fetch-unsafe" // a scheme, redirect or archive entry capreport refuses
	FetchDigest = "fetch-digest" // a download whose digest differs from its index or lock, or a stale Chart.lock
)

// Check IDs of the limits only a worker can enforce.
const (
	RenderMemory  = "render-memory"  // a render held more memory than its budget and was stopped
	RenderCrashed = "render-crashed" // a render's worker died (e.g. a stack overflow from runaway recursion)
	RenderLog     = "render-log"     // a render library printed a warning while rendering the source
)

// Check IDs raised by Extract. They are stable: users name them in
// ignore-check.capreport.io/<ID> annotations and checks.include/exclude.
const (
	DanglingTarget      = "dangling-target"
	DuplicateAutoscaler = "duplicate-autoscaler"
	AssumptionDefault   = "assumption-default"
	InvalidAnnotation   = "invalid-annotation"
	UnknownAnnotation   = "unknown-annotation"
	IgnoreWithoutReason = "ignore-without-reason"
	InvalidAutoscaler   = "invalid-autoscaler"
	KEDAV1Schema        = "keda-v1-schema"
	KEDAPaused          = "keda-paused"
	KEDAInvalidTrigger  = "keda-invalid-trigger"
	KEDAUnknownTrigger  = "keda-unknown-trigger"
	KEDADeprecated      = "keda-deprecated-field"
	KEDAIdleReplicas    = "keda-idle-replicas"
	KEDAValueMetricType = "keda-value-metric-type"
	KafkaPartitions     = "kafka-max-above-partitions"
	SignalUnknown       = "signal-unknown"
	MissingRequest      = "missing-request"
)

// Checks raised by the ledger.
const (
	DeadBand                = "dead-band"
	RecoveryTooSlow         = "recovery-too-slow"
	PeakWaitOverTarget      = "peak-wait-over-target"
	Hunting                 = "hunting"
	LatencyFloor            = "latency-floor"
	StandingDelayOverTarget = "standing-delay-over-target"
	KafkaPartitionCap       = "kafka-partition-cap"
	MaxReplicasBelowNeed    = "max-replicas-below-need"
	MinEqualsMax            = "min-equals-max"
	Unpriced                = "unpriced"
	MetricNotModelled       = "metric-not-modelled"
	UnknownCheck            = "unknown-check"

	// FirstMessageWaitOverTarget: a ScaledObject that scales to zero makes
	// the first message after an idle period wait longer than the target.
	FirstMessageWaitOverTarget = "first-message-wait-over-target"
)

// Info is the registry entry of one check: what the SARIF rule
// metadata, the README's checks table and `capreport explain` print.
// Its JSON (`capreport checks -o json`) is camelCase like the report's.
type Info struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Severity    string `json:"severity"` // default severity
	Description string `json:"description"`
	Remediation string `json:"remediation"`
	// RaisedBy names the functions that raise the check, as
	// "package.Func" or "package.Type.Method" (the package as its path in
	// the module). internal/housestyle's TestRaisedBy reads the source and
	// fails when a function names a check its entry does not list, or an
	// entry lists one that no longer does.
	RaisedBy []string `json:"raisedBy"`
}

// builtin is the registry of every check capreport raises, built once
// from builtinChecks. A table that NewRegistry refuses (a duplicate ID, an
// incomplete entry) stops the program as it starts, in every test.
var builtin = mustRegistry(builtinChecks)

var builtinChecks = []Info{
	{DeadBand, "Saturated CPU never scales", SeverityError,
		"The growth factor g = limit/(request·target) lies inside the tolerance band: with every ready pod at its limit the ratio is within 1 ± tolerance, so the controller holds its count however large the overload (Corollary 1; targets of 91 % and above with limit = request).",
		"Lower the target below 100·(limit/request)/(1 + tolerance) %, or raise the CPU limit above the request.",
		[]string{"rules.sizeChecks"}},
	{RecoveryTooSlow, "Recovery slower than its target", SeverityError,
		"At a design overload, serving capacity meets demand later than the recovery target: a saturated metric grows ready pods by at most g per round of dead time plus metric window (Proposition 2).",
		"Cut the dead time (image size, start-up, warm pools), lower the target to the hottest target that meets the overload in time, or raise the CPU limit.",
		[]string{"rules.sizeChecks"}},
	{PeakWaitOverTarget, "Peak wait beyond the latency target", SeverityError,
		"During a design overload the backlog built while capacity was short makes some requests wait longer than the latency target.",
		"Shorten the dead time, lower the target (raise g), or plan capacity for the overload ahead of time.",
		[]string{"rules.sizeChecks"}},
	{Hunting, "Backlog loop hunts", SeverityError,
		"Over the last hour of a 20-hour run after a demand step the replica count swings by more than 30 % of the pods needed: the standing delay T/c is below τ_eff·Φ(W_eff/τ_eff) (Proposition 4), so the loop never rests and pays for its peaks in pods.",
		"Raise the threshold to the one that rests, shorten the downscale stabilization window, or cut the dead time.",
		[]string{"rules.timeChecks"}},
	{LatencyFloor, "Latency target below the floor", SeverityError,
		"A backlog-scaled consumer rests only if every message waits at least τ_eff·Φ(W_eff/τ_eff) (Corollary 3): the latency target cannot be held at rest with this dead time and window.",
		"Relax the latency target, shorten the window, or cut the dead time; no threshold can fix it.",
		[]string{"rules.timeChecks"}},
	{StandingDelayOverTarget, "Standing delay above the latency target", SeverityWarning,
		"At rest every message waits D = threshold / pod rate (Little's law), which is longer than the latency target.",
		"Lower the threshold, as far as the latency floor allows.",
		[]string{"rules.timeChecks"}},
	{AssumptionDefault, "Assumption left at its default", SeverityWarning,
		"The dead time or pod rate is not annotated and was not configured, so the bill rests on a built-in default.",
		"Measure it and annotate the autoscaler (capreport.io/dead-time, capreport.io/pod-rate) or set it in .capreport.yaml.",
		[]string{"analyze.defaultFindings"}},
	{DanglingTarget, "Scale target not found", SeverityError,
		"The autoscaler's scaleTargetRef names no rendered Deployment, StatefulSet, ReplicaSet or Rollout in its namespace. Beside a GitOps object capreport did not follow (in the autoscaler's build or directory, or named as the target in its namespace) it is a warning naming that object: the workload is most likely among what it installs.",
		"Fix scaleTargetRef, or render the source that holds the workload (for a GitOps object not followed, its gitops-not-followed finding says why; --source maps a source to a local copy).",
		[]string{"analyze.danglingTarget", "analyze.finish"}},
	{DuplicateAutoscaler, "Two autoscalers on one target", SeverityError,
		"More than one HPA or ScaledObject targets the same workload; the controller refuses to scale pods selected by several HPAs.",
		"Keep one autoscaler per workload (with KEDA, move the HPA's metrics into the ScaledObject).",
		[]string{"analyze.markDuplicates"}},
	{KafkaPartitionCap, "Kafka partitions below the need", SeverityError,
		"KEDA's Kafka scaler does not ask for more consumers than partitions (without allowIdleConsumers), and the design demand needs more.",
		"Add partitions, or make each consumer faster.",
		[]string{"rules.timeChecks"}},
	{MaxReplicasBelowNeed, "maxReplicas below the need", SeverityError,
		"The design overload needs more replicas at the target than maxReplicas allows, so capacity never meets demand.",
		"Raise maxReplicas to at least the needed count, or plan for shedding load above it.",
		[]string{"rules.sizeChecks", "rules.timeChecks"}},
	{MinEqualsMax, "minReplicas equals maxReplicas", SeverityWarning,
		"The autoscaler cannot change the replica count.",
		"Remove the autoscaler or widen the range.",
		[]string{"rules.checksFor"}},
	{MetricNotModelled, "Metric left out of the model", SeverityInfo,
		"A multi-metric HPA is priced on the metric the model expresses (CPU for the Size row, the backlog for the Time row); the others are assumed to stay at or below their targets, so the bill is what that metric alone costs.",
		"Nothing to do if the other metrics do not rise with the load; otherwise read the bill as a lower bound.",
		[]string{"rules.unmodelled"}},
	{UnknownCheck, "Unknown check ID", SeverityWarning,
		"checks.include, checks.exclude or an ignore-check.capreport.io/<ID> annotation names a check that does not exist, so it selects or ignores nothing (a typo?).",
		"Use an ID from `capreport checks`.",
		[]string{"rules.applyIgnores", "rules.unknownCheckIDs"}},
	{Unpriced, "Autoscaler not priced", SeverityInfo,
		"capreport cannot price this autoscaler's signal (a rate, a schedule, an unknown metric) or lacks what the model needs.",
		"Set capreport.io/signal if the metric is really a backlog or a saturating utilization.",
		[]string{"rules.checksFor"}},
	{RenderFailed, "Source failed to render", SeverityError,
		"A chart, overlay or manifest could not be rendered; its autoscalers are not in the report.",
		"Fix the render error shown, or list the source with working values in .capreport.yaml.",
		[]string{"render.failureFinding", "render.foldGroup", "render/gitops/argo.Run.argoKustomize", "render/gitops/flux.Run.Kustomization", "render/gitops/flux.Run.ResourceSet", "render/helm.Renderer.localDependency", "render/internal/kustscan.Scan.LocalChart", "render/internal/kustscan.Scan.entryOrDrop", "render/internal/kustscan.Scan.read"}},
	{RenderPanic, "Renderer crashed on a source", SeverityError,
		"Rendering one source panicked inside a library; capreport recovered and rendered the others.",
		"Report the source to capreport's maintainers; meanwhile exclude it with explicit sources.",
		[]string{"render.renderer.renderGuarded"}},
	{RenderTimeout, "Source took too long to render", SeverityError,
		"A source did not finish rendering within the per-source time limit (--render-timeout, default 60s; e.g. a template that loops); its worker process was stopped.",
		"Fix the template, or list the source with values that render quickly.",
		[]string{"render.renderer.renderFresh", "render.renderer.workerFailure"}},
	{RenderMemory, "Source used too much memory to render", SeverityError,
		"A source's render held more memory than the per-source budget (--render-memory, default 512Mi) and its worker process was stopped; the other sources are rendered.",
		"Fix the template (a tpl that calls itself, a string doubled in a loop), or raise --render-memory if the source is really that large.",
		[]string{"render.renderer.workerFailure"}},
	{RenderCrashed, "Renderer process died on a source", SeverityError,
		"The worker process rendering this source died: a template recursed past the stack limit, or the Go runtime hit a fatal error. capreport rendered the others.",
		"Fix the recursion the message names; otherwise report the source to capreport's maintainers.",
		[]string{"render.renderer.workerFailure"}},
	{RenderLog, "Renderer printed a warning", SeverityWarning,
		"Helm or kustomize printed a warning while rendering this source (a deprecated kustomization field, a values table overwritten by a scalar, ...).",
		"Act on the warning quoted, e.g. run `kustomize edit fix` for deprecated fields.",
		[]string{"render.renderer.logFindings"}},
	{RenderCancelled, "Render cancelled", SeverityWarning,
		"The run was interrupted while this source rendered, or waited for a render worker.",
		"Run again.",
		[]string{"render.renderIsolated", "render.renderer.renderFresh", "render.renderer.workerFailure"}},
	{RemoteBase, "Remote Kustomize base", SeverityError,
		"A kustomization refers to a URL or git repository; capreport never fetches over the network, so the overlay is not rendered.",
		"Vendor the base into the repository, or render that overlay where the base is available.",
		[]string{"render/internal/kustscan.Scan.entry", "render/kustomize.Builder.inflateHelmChart"}},
	{ExecFunction, "Kustomize function not run", SeverityError,
		"A kustomization configures an exec, container or starlark function; capreport runs none of them.",
		"Render without the function, or commit its output.",
		[]string{"render/internal/kustscan.Scan.checkFunctions"}},
	{KustomizePlugin, "Kustomize plugin not run", SeverityError,
		"A kustomization uses a plugin form capreport does not run; the overlay is not rendered.",
		"Commit the plugin's output, or list the overlay without it.",
		[]string{"render/internal/kustscan.Scan.scanHelmCharts"}},
	{HelmChartRemote, "Remote chart in helmCharts", SeverityWarning,
		"A kustomization's helmCharts entry names a chart that is not vendored; capreport does not download charts, and renders the kustomization without it.",
		"Vendor the chart (helm pull --untar) next to the kustomization.",
		[]string{"render/internal/kustscan.Scan.LocalChart", "render/internal/kustscan.Scan.scanHelmCharts"}},
	{HelmDependencyMissing, "Chart dependency not vendored", SeverityWarning,
		"Chart.yaml declares a dependency that charts/ does not hold; capreport does not run helm dependency update, so the chart renders without it and any autoscaler it holds is missing.",
		"Run helm dependency build and commit charts/, or disable the dependency.",
		[]string{"render/helm.ManyMissingFinding", "render/helm.MissingDependencyFinding", "render/helm.Renderer.localDependency"}},
	{PathEscape, "Path leaves the repository", SeverityError,
		"A values file, resource or patch path leaves the repository root; capreport reads nothing outside it.",
		"Keep every referenced file inside the repository.",
		[]string{"render.renderer.explicitSources", "render/helm.Renderer.localDependency", "render/internal/kustscan.Scan.entry", "render/internal/repofs.CheckFor"}},
	{SymlinkEscape, "Symlink leaves the repository", SeverityError,
		"A symbolic link points outside the repository; capreport does not follow it.",
		"Replace the link with the file, or point it inside the repository.",
		[]string{"render/internal/repofs.CheckFor"}},
	{FileTooLarge, "File too large", SeverityError,
		"A file is larger than capreport reads.",
		"Split the file, or keep generated artefacts out of the scanned path.",
		[]string{"render/internal/repofs.CheckFor"}},
	{TooManyObjects, "Too many objects", SeverityError,
		"A source rendered more objects than capreport accepts from one source.",
		"Render the source in parts with explicit sources.",
		[]string{"render.failureFinding"}},
	{YAMLAliasBomb, "YAML alias bomb", SeverityError,
		"YAML aliases would expand beyond capreport's budget; the document is refused to keep memory bounded.",
		"Remove the recursive or exponential aliases.",
		[]string{"render.failureFinding", "render.renderer.renderPlainSource", "render/internal/kustscan.Scan.read"}},
	{YAMLInvalid, "YAML does not parse", SeverityError,
		"A manifest document is not valid YAML.",
		"Fix the YAML at the file and line shown.",
		[]string{"render.renderer.renderPlainSource"}},
	{NotAnObject, "Document is not a Kubernetes object", SeverityInfo,
		"A YAML document has no apiVersion or kind and is not rendered as an object.",
		"Nothing to do unless the document was meant to be a manifest.",
		[]string{"render.renderer.renderPlainSource", "render/helm.templateObjects"}},
	{HelmKeysEd25519, "Chart keys made as ed25519", SeverityInfo,
		"A chart's templates generate keys or certificates (genPrivateKey, genCA, genSignedCert, genSelfSignedCert); capreport makes them ed25519 where Helm makes RSA, which costs a second of CPU a key, so the key bytes differ from helm template's. No autoscaler reads them.",
		"Nothing to do; run helm template for the chart's own keys.",
		[]string{"render/internal/helmkeys.Finding"}},
	{SourceMissing, "Configured source missing", SeverityError,
		"A source listed in .capreport.yaml does not exist.",
		"Fix or remove the source entry.",
		[]string{"render.missingSourceFinding"}},
	{GitOpsNotFollowed, "GitOps object not followed", SeverityWarning,
		"A Flux Kustomization or HelmRelease, or an Argo CD Application or ApplicationSet, delivers something capreport cannot read offline: a chart in a Helm repository or OCI registry, another repository, a plugin, Jsonnet, a generator it does not expand. What it delivers is missing from the report.",
		"Vendor the chart or base into this repository, list this repository's URLs under repository.urls (or --repo-url) if the source is this repository, or price the delivered manifests from their own repository.",
		[]string{"render/gitops/argo.Run.argoHelm", "render/gitops/argo.appsetCheck", "render/gitops/flux.Run.HelmRelease", "render/internal/object.NotFollowed"}},
	{GitOpsReference, "GitOps reference not found", SeverityWarning,
		"A GitOps object names a ConfigMap, Secret, GitRepository, HelmChart, path or value file that is not in the render; the delivery is rendered without it.",
		"Add the referenced object or file to the repository, mark the reference optional, or fix its name.",
		[]string{"render/gitops/argo.Run.Application", "render/gitops/argo.Run.applicationSource", "render/gitops/argo.Run.argoHelm", "render/gitops/argo.Run.argoKustomize", "render/gitops/argo.appsetCheck", "render/gitops/flux.Run.HelmOperatorRelease", "render/gitops/flux.Run.HelmRelease", "render/gitops/flux.Run.Kustomization", "render/gitops/flux.Run.fluxVars", "render/gitops/flux.Run.helmOperatorValues", "render/gitops/flux.Run.helmReleaseValues"}},
	{GitOpsSubstitution, "Flux variable not substituted", SeverityWarning,
		"A ${var} in a Flux Kustomization's build has no value in postBuild.substitute or substituteFrom and no default; capreport keeps the text (Flux would substitute an empty string unless strict).",
		"Set the variable in postBuild.substitute, in a ConfigMap or Secret of substituteFrom that is in the repository, or give it a default (${var:=value}).",
		[]string{"render/internal/fluxsubst.All"}},
	{GitOpsCycle, "GitOps delivery cycle", SeverityWarning,
		"GitOps objects deliver each other in a cycle (an app-of-apps loop); capreport follows each once.",
		"Break the cycle: a parent should not be delivered by its own children.",
		[]string{"render/gitops.engine.noteCycle"}},
	{GitOpsLimit, "Too many GitOps objects", SeverityError,
		"More GitOps objects, a deeper delivery chain, or more valuesFrom values than capreport follows in one run; the rest is not rendered.",
		"Point capreport at a smaller part of the repository, or split generators that produce thousands of Applications.",
		[]string{"render/gitops.engine.run", "render/gitops/argo.appsetCheck", "render/internal/valuesfrom.BudgetFinding"}},
	{GitOpsWithheld, "Autoscalers withheld by a failed build", SeverityError,
		"A Flux Kustomization or HelmRelease, or an Argo CD Application, failed to build; the controller applies nothing of a failed build, so the autoscalers beneath it do not reach the cluster and are listed as withheld, not priced.",
		"Fix the build failure the render-failed finding of the same object names.",
		[]string{"render/gitops.engine.withheldFindings"}},
	{GitOpsUnappliedRoot, "Flux Kustomization applied by nothing", SeverityWarning,
		"A Flux Kustomization that nothing in the repository applies stands beneath the path another Flux Kustomization builds, and that build leaves it out (commented out of a kustomization's resources, or ignored). capreport follows it as a root of its own and reports what it delivers, which reaches the cluster only if something outside the repository applies it.",
		"List it in the kustomization that should apply it, or delete it if it is retired; run capreport on the cluster's Flux entry point to see only what the cluster applies.",
		[]string{"render/gitops.unappliedRoots"}},
	{DuplicateDelivery, "Autoscaler delivered twice", SeverityWarning,
		"Two delivery chains put the same autoscaler (kind, namespace and name) into the cluster; whichever applies last wins, and the report prices the first.",
		"Give each delivery its own namespace or name, or deliver the object once.",
		[]string{"render/gitops.dedupeDeliveries"}},
	{PartialRender, "Source rendered in part", SeverityWarning,
		"A kustomization entry does not exist, so the source was rendered without it; what it adds is missing from the report.",
		"Fix or remove the entry.",
		[]string{"render/internal/kustscan.Scan.entryOrDrop"}},
	{SchemaRef, "Values schema refers outside the chart", SeverityWarning,
		"A chart's values.schema.json has a $ref (or $schema) to a URL or a file; Helm would fetch or read it while rendering. capreport resolves nothing outside the schema and renders without schema validation.",
		"Inline the referenced definitions into values.schema.json (under $defs) and refer to them with #/$defs/...",
		[]string{"render/internal/valuesschema.RefFinding"}},
	{YAMLEncoding, "YAML file converted", SeverityInfo,
		"A plain YAML file is UTF-16 (with a byte-order mark) or breaks lines with CR alone; capreport converts it and reads it, where other tools may skip or misread it.",
		"Save the file as UTF-8 with LF line breaks.",
		[]string{"render.renderer.renderPlainSource"}},
	{YAMLDuplicateKey, "Mapping key defined twice", SeverityWarning,
		"A YAML document defines one key twice in a mapping. Helm and kustomize take the later value, which capreport prices; kubectl's strict decoding refuses the document.",
		"Remove the duplicate key.",
		[]string{"render/internal/object.DuplicateKeyFinding"}},
	{IgnoreWithoutReason, "Ignore without a reason", SeverityError,
		"An ignore-check.capreport.io/<ID> annotation has no reason, or ignores are forbidden by the config.",
		"Give the reason as the annotation's value, or fix the finding.",
		[]string{"analyze.parseIgnores", "rules.applyIgnores"}},
	{InvalidAnnotation, "Annotation value not understood", SeverityError,
		"A capreport.io/ annotation could not be parsed; the next layer (config, then default) was used instead.",
		"Fix the value at the file and line shown, e.g. capreport.io/dead-time: 90s.",
		[]string{"analyze.parseAnnotations", "analyze/keda.soTranslation.partitions"}},
	{UnknownAnnotation, "Unknown capreport annotation", SeverityWarning,
		"An annotation under capreport.io/ is not one capreport reads (a typo keeps a measured value out of the bill).",
		"Use one of the keys in the README's assumptions table.",
		[]string{"analyze.parseAnnotations"}},
	{InvalidAutoscaler, "Autoscaler cannot be decoded", SeverityError,
		"The HPA or ScaledObject does not decode as its apiVersion says; the API server would reject it.",
		"Fix the manifest at the file and line shown.",
		[]string{"analyze.buildHPA", "analyze.buildScaledObject", "analyze/keda.soTranslation.activationTarget", "analyze/keda.soTranslation.apiServerChecks", "analyze/keda.soTranslation.compositeTarget", "analyze/keda.soTranslation.fallback", "analyze/keda.soTranslation.replicaBounds", "analyze/keda.soTranslation.targetRef", "analyze/keda.soTranslation.triggerMetrics"}},
	{KEDAV1Schema, "KEDA v1 schema", SeverityError,
		"The ScaledObject uses the keda.k8s.io/v1alpha1 schema that KEDA 2 no longer serves.",
		"Migrate to keda.sh/v1alpha1 (scaleTargetRef.name instead of deploymentName).",
		[]string{"analyze.buildAutoscaler", "analyze/keda.soTranslation.targetRef"}},
	{KEDAPaused, "ScaledObject paused", SeverityWarning,
		"autoscaling.keda.sh/paused or paused-replicas is set: KEDA deletes the HPA and nothing scales.",
		"Remove the annotation when the pause is over.",
		[]string{"analyze/keda.soTranslation.pauseReplicas"}},
	{KEDAInvalidTrigger, "KEDA trigger invalid", SeverityError,
		"A trigger's metadata would make KEDA fail to build the scaler (missing or malformed parameter).",
		"Fix the trigger's metadata as the message says.",
		[]string{"analyze/keda.soTranslation.cachedMetrics", "analyze/keda.soTranslation.triggerMetric", "analyze/keda.soTranslation.uniqueMetricName", "analyze/keda.soTranslation.uniqueTriggerName"}},
	{KEDAUnknownTrigger, "KEDA trigger type not modelled", SeverityInfo,
		"The trigger type is passed through as an External metric whose signal capreport cannot infer.",
		"Set capreport.io/signal if the metric is a backlog or a saturating utilization.",
		[]string{"analyze/keda.unknownTrigger"}},
	{KEDADeprecated, "Deprecated KEDA field", SeverityWarning,
		"The ScaledObject uses a field KEDA has deprecated or removed.",
		"Move to the replacement the message names.",
		[]string{"analyze/keda.resourceTrigger", "analyze/keda.translateKEDATrigger"}},
	{KEDAIdleReplicas, "idleReplicaCount other than 0", SeverityWarning,
		"KEDA only supports idleReplicaCount 0; other values make the count flap between idle and min (kedacore/keda#2314).",
		"Use idleReplicaCount: 0 or remove it.",
		[]string{"analyze/keda.soTranslation.replicaBounds"}},
	{KEDAValueMetricType, "Value metric type on a backlog trigger", SeverityWarning,
		"metricType Value multiplies the metric by the ready pods, which is rarely what a queue-length trigger means.",
		"Use the default AverageValue.",
		[]string{"analyze/keda.cronTrigger", "analyze/keda.translateTrigger"}},
	{KafkaPartitions, "maxReplicaCount above the partitions", SeverityWarning,
		"KEDA's Kafka scaler does not ask for more consumers than partitions (without allowIdleConsumers), so replicas above the partition count are never used.",
		"Lower maxReplicaCount to the partition count, or add partitions.",
		[]string{"analyze/keda.soTranslation.capAtPartitions"}},
	{SignalUnknown, "Signal not inferred", SeverityInfo,
		"capreport cannot tell whether this metric is a backlog, a rate or a utilization.",
		"Set capreport.io/signal on the autoscaler.",
		[]string{"analyze.finish"}},
	{MissingRequest, "Utilization without a request", SeverityError,
		"A Utilization metric needs the resource's request on every container; without it the HPA reports an error and never scales on that metric.",
		"Set resources.requests for that resource on every container (and restartable init container).",
		[]string{"analyze.finish"}},
	{FetchFailed, "Fetch failed", SeverityWarning,
		"With --fetch, a chart dependency, remote chart or base could not be downloaded: the server was unreachable or refused the credentials, or has no such chart or version. The source renders without it.",
		"Check the repository URL and version; for a private repository put its credentials in CAPREPORT_FETCH_AUTH (\"URL USER PASSWORD\" per line).",
		[]string{"render/helm.Renderer.fetchDependencies", "render/internal/fetch.Check"}},
	{FetchLimit, "Fetch limit reached", SeverityError,
		"With --fetch, a download broke a limit: its size, the size or file count it unpacks to, the dependencies one chart may fetch, or the request or run time. The rest of the report is still produced.",
		"Vendor the chart if it is legitimately that large, or raise the limit (--fetch-timeout, .capreport.yaml fetch limits); treat an archive that unpacks to gigabytes as hostile.",
		[]string{"render/helm.Renderer.fetchDependencies", "render/internal/fetch.Check"}},
	{FetchUnsafe, "Fetch refused", SeverityError,
		"With --fetch, capreport refused what the repository points at: a scheme other than http, https or oci, a redirect to another scheme or from https to http, or an archive entry with \"..\", an absolute path or a link.",
		"Serve charts over https or oci:// and package them with helm package; never follow such an archive.",
		[]string{"render/internal/fetch.Check"}},
	{FetchDigest, "Fetch digest mismatch", SeverityError,
		"With --fetch, a downloaded chart's SHA-256 differs from the digest its repository index or OCI reference names, or Chart.lock is out of sync with Chart.yaml (Helm refuses to build it). Nothing is rendered from it.",
		"Run helm dependency update and commit Chart.lock; if the digest is wrong on the server, the chart was replaced: find out why.",
		[]string{"render/helm.Renderer.fetchDependencies", "render/internal/fetch.Check"}},
	// Appended rather than grouped with the ledger's checks: SARIF's
	// ruleIndex follows this order, and appending keeps earlier indices.
	{FirstMessageWaitOverTarget, "First message after idle waits beyond the latency target", SeverityError,
		"A ScaledObject without minReplicaCount (or with 0, or idleReplicaCount 0) has no pod after an idle period, and its HPA does nothing at zero replicas: only KEDA's operator orders the first pod, at a poll that finds the trigger above its activation threshold. The first message of a busy spell then waits up to the activation wait (⌊threshold⌋ further messages at the demand), one polling interval and the dead time, longer than the latency target.",
		"Keep a pod warm with minReplicaCount: 1 if the target holds after idle too; otherwise shorten pollingInterval, cut the dead time, or lower the activation threshold.",
		[]string{"rules.scaleFromZeroCheck"}},
}

// Registry is a set of checks, each ID once, in the order given.
type Registry struct {
	infos []Info
	byID  map[string]int
}

// NewRegistry builds a registry from infos. It refuses a duplicate ID, an
// empty ID, a severity other than the three, and an entry without title,
// description, remediation or the functions that raise it.
func NewRegistry(infos []Info) (*Registry, error) {
	r := &Registry{infos: make([]Info, 0, len(infos)), byID: make(map[string]int, len(infos))}
	for _, c := range infos {
		if err := validate(c); err != nil {
			return nil, err
		}
		if _, dup := r.byID[c.ID]; dup {
			return nil, fmt.Errorf("check %q registered twice", c.ID)
		}
		r.byID[c.ID] = len(r.infos)
		c.RaisedBy = slices.Clone(c.RaisedBy)
		r.infos = append(r.infos, c)
	}
	return r, nil
}

func validate(c Info) error {
	switch {
	case c.ID == "":
		return errors.New("a check without an ID")
	case c.Severity != SeverityError && c.Severity != SeverityWarning && c.Severity != SeverityInfo:
		return fmt.Errorf("check %q: severity %q is none of error, warning, info", c.ID, c.Severity)
	case c.Title == "" || c.Description == "" || c.Remediation == "":
		return fmt.Errorf("check %q: title, description and remediation are all needed", c.ID)
	case len(c.RaisedBy) == 0:
		return fmt.Errorf("check %q: no function raises it", c.ID)
	}
	return nil
}

func mustRegistry(infos []Info) *Registry {
	r, err := NewRegistry(infos)
	if err != nil {
		panic("check: the built-in registry is invalid: " + err.Error())
	}
	return r
}

// Lookup returns the entry of id; an ID that is not registered finds
// nothing (ok false, a zero Info).
func (r *Registry) Lookup(id string) (Info, bool) {
	i, ok := r.byID[id]
	if !ok {
		return Info{}, false
	}
	c := r.infos[i]
	c.RaisedBy = slices.Clone(c.RaisedBy)
	return c, true
}

// All returns every entry, in registration order; the caller owns the copy.
func (r *Registry) All() []Info {
	out := make([]Info, len(r.infos))
	for i, c := range r.infos {
		c.RaisedBy = slices.Clone(c.RaisedBy)
		out[i] = c
	}
	return out
}

// Raise is a finding of check id with its registered severity and
// remediation and the message formatted from format and args. It fails
// closed: an ID that is not registered raises an unknown-check error
// naming it, never a finding without a severity.
func (r *Registry) Raise(id, format string, args ...any) Finding {
	msg := fmt.Sprintf(format, args...)
	c, ok := r.Lookup(id)
	if !ok {
		u, _ := r.Lookup(UnknownCheck)
		return Finding{Check: UnknownCheck, Severity: SeverityError, Remediation: u.Remediation,
			Message: fmt.Sprintf("capreport raised %q, which is not a check: %s", id, msg)}
	}
	return Finding{Check: id, Severity: c.Severity, Remediation: c.Remediation, Message: msg}
}

// Builtin is the registry of capreport's own checks.
func Builtin() *Registry { return builtin }

// All returns every built-in check, in the registry's order.
func All() []Info { return builtin.All() }

// Lookup returns the built-in entry of id (see Registry.Lookup).
func Lookup(id string) (Info, bool) { return builtin.Lookup(id) }

// Raise is a finding of a built-in check (see Registry.Raise).
func Raise(id, format string, args ...any) Finding { return builtin.Raise(id, format, args...) }

// Capped reports a finding that a built-in default demoted: its check
// fails by default, and it stands as a warning only because a default
// decides it.
func (f Finding) Capped() bool {
	info, _ := Lookup(f.Check)
	return f.RestsOnDefaults && f.Severity == SeverityWarning && info.Severity == SeverityError
}
