package kube

// The parts of the Kubernetes API (core/v1, batch/v1) that the manifests use, in the API's field
// names and in the order `kubectl get -o yaml` shows them. Only what dbbench sets is here; the tests
// decode every rendering strictly into k8s.io/api's own types.

type objectMeta struct {
	Name      string            `yaml:"name"`
	Namespace string            `yaml:"namespace,omitempty"`
	Labels    map[string]string `yaml:"labels,omitempty"`
}

type configMap struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   objectMeta        `yaml:"metadata"`
	Immutable  bool              `yaml:"immutable"`
	Data       map[string]string `yaml:"data"`
}

type persistentVolumeClaim struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       claimSpec  `yaml:"spec"`
}

type claimSpec struct {
	AccessModes      []string             `yaml:"accessModes"`
	StorageClassName string               `yaml:"storageClassName,omitempty"`
	Resources        resourceRequirements `yaml:"resources"`
}

// resourceRequirements holds quantities as text: the user's (checked against the quantity grammar
// by Spec.Check) or the formulas' (Spec.runResources, whole Mi and cores).
type resourceRequirements struct {
	Requests map[string]string `yaml:"requests,omitempty"`
	Limits   map[string]string `yaml:"limits,omitempty"`
}

type job struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       jobSpec    `yaml:"spec"`
}

type jobSpec struct {
	ActiveDeadlineSeconds   *int64            `yaml:"activeDeadlineSeconds"`
	Suspend                 *bool             `yaml:"suspend,omitempty"`
	CompletionMode          string            `yaml:"completionMode,omitempty"`
	Completions             *int32            `yaml:"completions,omitempty"`
	Parallelism             *int32            `yaml:"parallelism,omitempty"`
	BackoffLimit            *int32            `yaml:"backoffLimit,omitempty"`
	BackoffLimitPerIndex    *int32            `yaml:"backoffLimitPerIndex,omitempty"`
	PodFailurePolicy        *podFailurePolicy `yaml:"podFailurePolicy,omitempty"`
	TTLSecondsAfterFinished *int32            `yaml:"ttlSecondsAfterFinished"`
	Template                podTemplate       `yaml:"template"`
}

type podFailurePolicy struct {
	Rules []podFailurePolicyRule `yaml:"rules"`
}

type podFailurePolicyRule struct {
	Action          string                `yaml:"action"`
	OnExitCodes     *exitCodesRequirement `yaml:"onExitCodes,omitempty"`
	OnPodConditions []podConditionPattern `yaml:"onPodConditions,omitempty"`
}

type exitCodesRequirement struct {
	ContainerName string  `yaml:"containerName,omitempty"`
	Operator      string  `yaml:"operator"`
	Values        []int32 `yaml:"values,flow"`
}

type podConditionPattern struct {
	Type   string `yaml:"type"`
	Status string `yaml:"status"`
}

type podTemplate struct {
	Metadata templateMeta `yaml:"metadata"`
	Spec     podSpec      `yaml:"spec"`
}

type templateMeta struct {
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

type podSpec struct {
	RestartPolicy                string                     `yaml:"restartPolicy"`
	AutomountServiceAccountToken bool                       `yaml:"automountServiceAccountToken"`
	EnableServiceLinks           bool                       `yaml:"enableServiceLinks"`
	SecurityContext              podSecurityContext         `yaml:"securityContext"`
	NodeSelector                 map[string]string          `yaml:"nodeSelector,omitempty"`
	Tolerations                  []Toleration               `yaml:"tolerations,omitempty"`
	TopologySpreadConstraints    []topologySpreadConstraint `yaml:"topologySpreadConstraints,omitempty"`
	Containers                   []container                `yaml:"containers"`
	Volumes                      []volume                   `yaml:"volumes"`
}

// podSecurityContext and securityContext hold what Pod Security's "restricted" level asks of a
// pod and of each container.
type podSecurityContext struct {
	RunAsNonRoot   bool           `yaml:"runAsNonRoot"`
	RunAsUser      int64          `yaml:"runAsUser"`
	RunAsGroup     int64          `yaml:"runAsGroup"`
	FSGroup        int64          `yaml:"fsGroup"`
	SeccompProfile seccompProfile `yaml:"seccompProfile"`
}

type seccompProfile struct {
	Type string `yaml:"type"`
}

type securityContext struct {
	AllowPrivilegeEscalation bool         `yaml:"allowPrivilegeEscalation"`
	ReadOnlyRootFilesystem   bool         `yaml:"readOnlyRootFilesystem"`
	Capabilities             capabilities `yaml:"capabilities"`
}

type capabilities struct {
	Drop []string `yaml:"drop,flow"`
}

// Toleration is one toleration of every pod (--toleration): Operator Exists without a Value,
// Equal with one; Effect "" tolerates every effect.
type Toleration struct {
	Key      string `yaml:"key"`
	Operator string `yaml:"operator"`
	Value    string `yaml:"value,omitempty"`
	Effect   string `yaml:"effect,omitempty"`
}

type topologySpreadConstraint struct {
	MaxSkew           int32          `yaml:"maxSkew"`
	TopologyKey       string         `yaml:"topologyKey"`
	WhenUnsatisfiable string         `yaml:"whenUnsatisfiable"`
	LabelSelector     *labelSelector `yaml:"labelSelector,omitempty"`
}

type labelSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

type container struct {
	Name            string               `yaml:"name"`
	Image           string               `yaml:"image"`
	Command         []string             `yaml:"command"`
	Args            []string             `yaml:"args,omitempty"`
	Env             []envVar             `yaml:"env,omitempty"`
	EnvFrom         []envFromSource      `yaml:"envFrom,omitempty"`
	Resources       resourceRequirements `yaml:"resources"`
	SecurityContext securityContext      `yaml:"securityContext"`
	VolumeMounts    []volumeMount        `yaml:"volumeMounts"`
}

// envVar is a container's variable: a value, or one the downward API fills in.
type envVar struct {
	Name      string        `yaml:"name"`
	Value     string        `yaml:"value,omitempty"`
	ValueFrom *envVarSource `yaml:"valueFrom,omitempty"`
}

type envVarSource struct {
	FieldRef *fieldSelector `yaml:"fieldRef,omitempty"`
}

type fieldSelector struct {
	FieldPath string `yaml:"fieldPath"`
}

type envFromSource struct {
	SecretRef *secretEnvSource `yaml:"secretRef,omitempty"`
}

type secretEnvSource struct {
	Name string `yaml:"name"`
}

type volumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	ReadOnly  bool   `yaml:"readOnly,omitempty"`
}

type volume struct {
	Name                  string           `yaml:"name"`
	ConfigMap             *configMapSource `yaml:"configMap,omitempty"`
	PersistentVolumeClaim *claimSource     `yaml:"persistentVolumeClaim,omitempty"`
	EmptyDir              *emptyDirSource  `yaml:"emptyDir,omitempty"`
}

type emptyDirSource struct{}

type configMapSource struct {
	Name  string      `yaml:"name"`
	Items []keyToPath `yaml:"items,omitempty"`
}

type keyToPath struct {
	Key  string `yaml:"key"`
	Path string `yaml:"path"`
}

type claimSource struct {
	ClaimName string `yaml:"claimName"`
}
