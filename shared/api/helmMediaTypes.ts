// The media types that make an OCI artifact a Helm chart: Helm, Argo CD and registries recognise a
// chart by them, so the chart the plans package and the charts the OCI client copies carry the same.

export const HELM_CONFIG = 'application/vnd.cncf.helm.config.v1+json';
export const HELM_CHART_LAYER = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip';
