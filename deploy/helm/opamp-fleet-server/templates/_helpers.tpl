{{- define "ofs.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ofs.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "ofs.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ofs.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ofs.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "ofs.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "ofs.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "ofs.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* SIGTERM to exit: the preStop sleep, the drain delay, the close timeout and the final flush. */}}
{{- define "ofs.terminationGracePeriodSeconds" -}}
{{- $s := .Values.shutdown -}}
{{- add (int $s.preStopSleepSeconds) (int $s.drainDelaySeconds) (int $s.closeTimeoutSeconds) (int $s.flushSeconds) -}}
{{- end -}}

{{- define "ofs.tlsDir" -}}/etc/opamp-fleet-server/tls{{- end -}}

{{/*
The configuration file: the operator's `config` with the keys the chart owns merged over it.
*/}}
{{- define "ofs.config" -}}
{{- $config := deepCopy (default dict .Values.config) -}}
{{- $owned := dict
  "listeners" (dict
    "opamp" (printf ":%d" (int .Values.ports.opamp))
    "ui" (printf ":%d" (int .Values.ports.ui))
    "telemetry" (printf ":%d" (int .Values.ports.telemetry)))
  "shutdown" (dict
    "drain_delay" (printf "%ds" (int .Values.shutdown.drainDelaySeconds))
    "close_timeout" (printf "%ds" (int .Values.shutdown.closeTimeoutSeconds))) -}}
{{- if .Values.database.host -}}
{{- $_ := set $owned "database" (dict
  "host" .Values.database.host
  "port" (int .Values.database.port)
  "user" .Values.database.user
  "dbname" .Values.database.dbname
  "sslmode" .Values.database.sslmode) -}}
{{- end -}}
{{- $dir := include "ofs.tlsDir" . -}}
{{- range $listener := list "opamp" "ui" "telemetry" -}}
{{- $tls := get $.Values.tls $listener -}}
{{- if $tls.secretName -}}
{{- $files := dict "cert_file" (printf "%s/%s/tls.crt" $dir $listener) "key_file" (printf "%s/%s/tls.key" $dir $listener) -}}
{{- if $tls.clientCA -}}
{{- $_ := set $files "client_ca_file" (printf "%s/%s/ca.crt" $dir $listener) -}}
{{- end -}}
{{- $_ := set $owned (printf "%s_tls" $listener) $files -}}
{{- end -}}
{{- end -}}
{{- if .Values.tls.agentCa.secretName -}}
{{- $agents := deepCopy (default dict (get $config "agents")) -}}
{{- $ca := merge (dict "cert_file" (printf "%s/agent-ca/tls.crt" $dir) "key_file" (printf "%s/agent-ca/tls.key" $dir)) (default dict (get $agents "ca")) -}}
{{- $_ := set $agents "ca" $ca -}}
{{- $_ := set $owned "agents" $agents -}}
{{- end -}}
{{- toYaml (mergeOverwrite $config $owned) -}}
{{- end -}}
