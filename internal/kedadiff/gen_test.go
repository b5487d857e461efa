package kedadiff

import (
	"fmt"
	"math/rand/v2"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
)

// endpoints are the loopback servers the scalers that connect while they
// are built (kafka, redis) reach; the others only parse their addresses.
type endpoints struct {
	kafka, redis string
}

// gen draws ScaledObjects. Each field is drawn mostly valid, sometimes
// omitted and now and then broken, so that both what KEDA builds and what
// it refuses are exercised.
type gen struct {
	r  *rand.Rand
	ep endpoints
	// breakage scales how often a value is drawn broken or a required
	// field left out: 1 for the plain draw, less for the mostly valid
	// group, whose ScaledObjects more often become HPAs to compare.
	breakage float64
}

func (g gen) chance(p float64) bool { return g.r.Float64() < p }

// keep draws a field that is there with probability p at breakage 1.
func (g gen) keep(p float64) bool { return g.chance(1 - (1-p)*g.breakage) }

func (g gen) pick(vs ...string) string { return vs[g.r.IntN(len(vs))] }

// num draws a numeric metadata value: usually a plain positive integer,
// sometimes zero, negative, fractional, padded, exponent or not a number.
func (g gen) num() string {
	if g.keep(0.8) {
		return fmt.Sprint(1 + g.r.IntN(200))
	}
	return g.pick("0", "-3", "2.5", "0.25", "abc", " 7", "7 ", "1e3", "100000", "", "+4", "0x10", "1_000", "9223372036854775807")
}

// int32p draws an optional replica count.
func (g gen) int32p(vals ...int32) *int32 {
	if g.chance(0.3) {
		return nil
	}
	v := vals[g.r.IntN(len(vals))]
	return &v
}

// scaledObject draws one ScaledObject in namespace default.
func (g gen) scaledObject() *kedav1alpha1.ScaledObject {
	so := &kedav1alpha1.ScaledObject{
		TypeMeta:   metav1.TypeMeta{APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject"},
		ObjectMeta: metav1.ObjectMeta{Name: g.pick("orders", "web", "consumer-1", "a", "x.y", "billing-worker-long-name-0123456789"), Namespace: "default"},
	}
	so.Annotations = g.annotations()
	so.Spec.ScaleTargetRef = g.target()
	so.Spec.MinReplicaCount = g.int32p(0, 0, 1, 1, 2, 3, 5, 10, 150, -1)
	so.Spec.MaxReplicaCount = g.int32p(1, 2, 5, 10, 20, 100, 0, -2)
	if g.keep(0.7) {
		// Most draws keep the bounds in order (min at most max).
		so.Spec.MinReplicaCount, so.Spec.MaxReplicaCount = g.int32p(0, 1, 2, 3), g.int32p(5, 10, 20, 100)
	}
	if g.chance(0.15) {
		so.Spec.IdleReplicaCount = g.int32p(0, 0, 1, 2)
	}
	if g.chance(0.2) {
		so.Spec.PollingInterval = g.int32p(1, 5, 30)
		so.Spec.CooldownPeriod = g.int32p(0, 60, 300)
	}
	if g.chance(0.2) {
		so.Spec.Fallback = &kedav1alpha1.Fallback{
			FailureThreshold: int32(g.r.IntN(5)) - 1,
			Replicas:         int32(g.r.IntN(8)) - 1,
			Behavior:         (g.pick("", "static", "currentReplicas", "currentReplicasIfHigher")),
		}
	}
	so.Spec.Triggers = g.triggers()
	so.Spec.Advanced = g.advanced(so.Spec.Triggers)
	return so
}

// annotations draws the pause annotations, with values KEDA reads as
// booleans (anything unparsable counting as true).
func (g gen) annotations() map[string]string {
	a := map[string]string{}
	boolish := func() string { return g.pick("true", "false", "True", "0", "1", "yes", " true", "false ", "") }
	if g.chance(0.05 * g.breakage) {
		a[kedav1alpha1.PausedAnnotation] = boolish()
	}
	if g.chance(0.03 * g.breakage) {
		a[kedav1alpha1.PausedReplicasAnnotation] = g.pick("0", "3", "x")
	}
	if g.chance(0.08) {
		a[kedav1alpha1.PausedScaleInAnnotation] = boolish()
	}
	if g.chance(0.08) {
		a[kedav1alpha1.PausedScaleOutAnnotation] = boolish()
	}
	if len(a) == 0 {
		return nil
	}
	return a
}

// target draws scaleTargetRef: the Deployment web or the StatefulSet db,
// which the fake cluster holds, with apiVersion and kind often left to
// KEDA's defaults; rarely no name.
func (g gen) target() *kedav1alpha1.ScaleTarget {
	t := &kedav1alpha1.ScaleTarget{Name: "web"}
	switch g.r.IntN(6) {
	case 0:
		t.Kind = "Deployment"
	case 1:
		t.APIVersion, t.Kind = "apps/v1", "Deployment"
	case 2:
		t.Name, t.Kind = "db", "StatefulSet"
	case 3:
		t.Name, t.APIVersion, t.Kind = "db", "apps/v1", "StatefulSet"
	}
	if !g.keep(0.98) {
		t.Name = ""
	}
	if g.chance(0.05) {
		t.EnvSourceContainerName = "app"
	}
	return t
}

// advanced draws horizontalPodAutoscalerConfig (name, behavior) and
// scalingModifiers over the triggers' names.
func (g gen) advanced(triggers []kedav1alpha1.ScaleTriggers) *kedav1alpha1.AdvancedConfig {
	if g.chance(0.5) {
		return nil
	}
	a := &kedav1alpha1.AdvancedConfig{RestoreToOriginalReplicaCount: g.chance(0.2)}
	if g.chance(0.7) {
		a.HorizontalPodAutoscalerConfig = &kedav1alpha1.HorizontalPodAutoscalerConfig{}
		if g.chance(0.4) {
			a.HorizontalPodAutoscalerConfig.Name = g.pick("custom-hpa", "web-hpa", "keda-hpa-orders")
		}
		if g.chance(0.7) {
			a.HorizontalPodAutoscalerConfig.Behavior = g.behavior()
		}
	}
	if g.chance(0.3) {
		a.ScalingModifiers = g.modifiers(triggers)
	}
	return a
}

func (g gen) behavior() *autoscalingv2.HorizontalPodAutoscalerBehavior {
	b := &autoscalingv2.HorizontalPodAutoscalerBehavior{}
	if g.chance(0.7) {
		b.ScaleUp = g.rules()
	}
	if g.chance(0.7) {
		b.ScaleDown = g.rules()
	}
	return b
}

func (g gen) rules() *autoscalingv2.HPAScalingRules {
	r := &autoscalingv2.HPAScalingRules{}
	if g.chance(0.6) {
		w := int32(g.r.IntN(600))
		r.StabilizationWindowSeconds = &w
	}
	if g.chance(0.3) {
		p := autoscalingv2.ScalingPolicySelect(g.pick("Max", "Min", "Disabled"))
		r.SelectPolicy = &p
	}
	for n := g.r.IntN(3); n > 0; n-- {
		r.Policies = append(r.Policies, autoscalingv2.HPAScalingPolicy{
			Type:          autoscalingv2.HPAScalingPolicyType(g.pick("Pods", "Percent")),
			Value:         int32(1 + g.r.IntN(100)),
			PeriodSeconds: int32(1 + g.r.IntN(600)),
		})
	}
	return r
}

// modifiers draws scalingModifiers: a formula over trigger names (some
// not defined), a target (sometimes invalid), a metricType.
func (g gen) modifiers(triggers []kedav1alpha1.ScaleTriggers) kedav1alpha1.ScalingModifiers {
	names := []string{"missing"}
	for _, t := range triggers {
		if t.Name != "" && t.Type != "cpu" && t.Type != "memory" {
			names = append(names, t.Name)
		}
	}
	n := func() string { return names[g.r.IntN(len(names))] }
	m := kedav1alpha1.ScalingModifiers{
		Formula:          g.pick(n(), n()+" + "+n(), "("+n()+" + "+n()+") / 2", n()+" > 5 ? 10 : 1", "float("+n()+")", "2", "", n()+" +"),
		Target:           g.pick("5", "2.5", "0", "-1", "abc", "", "100", "0.001"),
		ActivationTarget: g.pick("", "", "1", "x"),
		MetricType:       autoscalingv2.MetricTargetType(g.pick("", "", "AverageValue", "Value", "Utilization")),
	}
	return m
}

// triggers draws one to four triggers (rarely none), names from a small
// pool so that some repeat.
func (g gen) triggers() []kedav1alpha1.ScaleTriggers {
	n := 1 + g.r.IntN(3)
	switch {
	case !g.keep(0.98):
		n = 0
	case g.chance(0.1):
		n = 4 + g.r.IntN(10)
	}
	out := make([]kedav1alpha1.ScaleTriggers, 0, n)
	for range n {
		out = append(out, g.trigger())
	}
	return out
}

var triggerTypes = []string{"cpu", "memory", "prometheus", "kafka", "rabbitmq", "aws-sqs-queue", "redis",
	"cron", "nats-jetstream", "gcp-pubsub", "azure-servicebus", "aws-cloudwatch"}

func (g gen) trigger() kedav1alpha1.ScaleTriggers {
	t := kedav1alpha1.ScaleTriggers{Type: triggerTypes[g.r.IntN(len(triggerTypes))]}
	if g.chance(0.3) {
		t.Name = g.pick("a", "b", "c", "queue", "lag")
	}
	if g.chance(0.04) {
		t.UseCachedMetrics = true
	}
	t.MetricType = g.metricType(t.Type == "cpu" || t.Type == "memory")
	t.Metadata = g.metadata(t.Type)
	return t
}

// metricType draws a trigger's metricType: for cpu and memory mostly
// Utilization or AverageValue, for the others mostly none (AverageValue)
// or Value; now and then one the scaler refuses.
func (g gen) metricType(resource bool) autoscalingv2.MetricTargetType {
	if !g.keep(0.85) {
		if resource {
			return autoscalingv2.MetricTargetType(g.pick("", "Value"))
		}
		return autoscalingv2.UtilizationMetricType
	}
	if resource {
		return autoscalingv2.MetricTargetType(g.pick("Utilization", "AverageValue"))
	}
	return autoscalingv2.MetricTargetType(g.pick("", "", "AverageValue", "Value"))
}

// metadata draws a trigger's metadata for its scaler.
func (g gen) metadata(typ string) map[string]string {
	md := map[string]string{}
	// set draws key k, present with probability p; a key usually present
	// is one a scaler needs, so leaving it out is breakage.
	set := func(k string, p float64, v func() string) {
		if (p >= 0.5 && g.keep(p)) || (p < 0.5 && g.chance(p)) {
			md[k] = v()
		}
	}
	name := func() string {
		return g.pick("orders", "orders.v1", "my-queue", "a/b", "q:1", "50%", "(x)", "Queue_1", "with space", "é")
	}
	switch typ {
	case "cpu", "memory":
		set("value", 0.95, func() string {
			return g.pick("50", "80", "0", "-5", "101", "1.5", "abc", "500m", "1Gi", "256Mi", "2")
		})
		set("containerName", 0.2, func() string { return g.pick("app", "sidecar") })
		set("type", 0.05, func() string { return g.pick("Utilization", "AverageValue") })
	case "prometheus":
		set("serverAddress", 0.97, func() string { return "http://127.0.0.1:9/prometheus" })
		set("query", 0.97, func() string { return g.pick("sum(rate(http_requests_total[2m]))", "queue_depth", "") })
		set("threshold", 0.95, g.num)
		set("activationThreshold", 0.3, g.num)
		set("namespace", 0.1, name)
	case "kafka":
		set("bootstrapServers", 0.97, func() string { return g.ep.kafka })
		set("consumerGroup", 0.95, func() string { return g.pick("group", "g.1", "grp/x") })
		set("topic", 0.8, name)
		set("lagThreshold", 0.8, g.num)
		set("activationLagThreshold", 0.3, g.num)
		set("allowIdleConsumers", 0.15, func() string { return g.pick("true", "false", "maybe") })
		set("limitToPartitionsWithLag", 0.1, func() string { return g.pick("true", "false") })
		set("excludePersistentLag", 0.1, func() string { return g.pick("true", "false") })
		set("offsetResetPolicy", 0.1, func() string { return g.pick("latest", "earliest", "never") })
	case "rabbitmq":
		set("host", 0.97, func() string { return "http://guest:guest@127.0.0.1:9/vhost" })
		set("protocol", 0.2, func() string { return g.pick("http", "auto") })
		set("queueName", 0.95, name)
		switch g.r.IntN(4) {
		case 0:
			set("queueLength", 0.9, g.num)
		case 1:
			set("mode", 0.9, func() string {
				return g.pick("QueueLength", "MessageRate", "DeliverGetRate", "PublishedToDeliveredRatio", "ExpectedQueueConsumptionTime", "Bogus")
			})
			set("value", 0.9, g.num)
		case 2:
			set("queueLength", 0.5, g.num)
			set("mode", 0.5, func() string { return "QueueLength" })
			set("value", 0.5, g.num)
		}
		set("activationValue", 0.3, g.num)
	case "aws-sqs-queue":
		set("queueURL", 0.95, func() string {
			return g.pick("https://sqs.eu-west-1.amazonaws.com/123456789012/orders", "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo",
				"orders", "https://sqs.eu-west-1.amazonaws.com/", "https://example.com/a/b/c/d")
		})
		set("awsRegion", 0.95, func() string { return "eu-west-1" })
		md["identityOwner"] = "operator"
		set("queueLength", 0.8, g.num)
		set("activationQueueLength", 0.3, g.num)
		set("scaleOnInFlight", 0.1, func() string { return g.pick("true", "false") })
	case "redis":
		set("address", 0.97, func() string { return g.ep.redis })
		set("listName", 0.95, name)
		set("listLength", 0.8, g.num)
		set("activationListLength", 0.3, g.num)
	case "cron":
		set("timezone", 0.95, func() string { return g.pick("Etc/UTC", "Europe/Berlin", "America/New_York", "Not/AZone") })
		set("start", 0.95, func() string { return g.pick("0 8 * * *", "*/5 * * * 1-5", "30 6 ? * MON", "bad cron") })
		set("end", 0.95, func() string { return g.pick("0 18 * * *", "59 23 * * *", "0 8 * * *") })
		set("desiredReplicas", 0.95, g.num)
	case "nats-jetstream":
		set("natsServerMonitoringEndpoint", 0.97, func() string { return "127.0.0.1:9" })
		set("account", 0.5, func() string { return "$G" })
		set("stream", 0.95, name)
		set("consumer", 0.95, func() string { return "durable" })
		set("lagThreshold", 0.8, g.num)
		set("activationLagThreshold", 0.3, g.num)
	case "gcp-pubsub":
		if g.chance(0.5) {
			set("subscriptionName", 0.95, name)
		} else {
			set("topicName", 0.95, name)
		}
		md["credentialsFromEnv"] = "GOOGLE_APPLICATION_CREDENTIALS_JSON"
		switch g.r.IntN(3) {
		case 0:
			set("subscriptionSize", 0.9, g.num)
		case 1:
			set("mode", 0.7, func() string { return g.pick("SubscriptionSize", "OldestUnackedMessageAge", "NumUndeliveredMessages") })
			set("value", 0.8, g.num)
		}
		set("activationValue", 0.3, g.num)
	case "azure-servicebus":
		if g.chance(0.6) {
			set("queueName", 0.95, name)
		} else {
			set("topicName", 0.95, name)
			set("subscriptionName", 0.9, func() string { return "sub" })
		}
		md["connectionFromEnv"] = "SERVICEBUS_CONNECTION"
		set("messageCount", 0.8, g.num)
		set("activationMessageCount", 0.3, g.num)
	case "aws-cloudwatch":
		md["namespace"], md["metricName"] = "AWS/SQS", "ApproximateNumberOfMessagesVisible"
		md["dimensionName"], md["dimensionValue"] = "QueueName", "orders"
		set("targetMetricValue", 0.9, g.num)
		set("minMetricValue", 0.9, func() string { return g.pick("0", "1") })
		set("awsRegion", 0.95, func() string { return "eu-west-1" })
		md["identityOwner"] = "operator"
	}
	return md
}
