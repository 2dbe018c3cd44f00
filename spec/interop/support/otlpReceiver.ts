// A small OTLP/HTTP metrics receiver for the interop specs: accepts POST /v1/metrics as protobuf
// (gzip or not) or JSON, and keeps the resource attributes of every export it got. Enough of
// ExportMetricsServiceRequest is decoded to read string resource attributes; the rest is skipped.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

const { root } = protobuf.parse(`
  syntax = "proto3";
  message AnyValue { string string_value = 1; }
  message KeyValue { string key = 1; AnyValue value = 2; }
  message Resource { repeated KeyValue attributes = 1; }
  message ResourceMetrics { Resource resource = 1; }
  message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
`);
const Request = root.lookupType('ExportMetricsServiceRequest');

type Attributes = Record<string, string>;
interface WireRequest {
  resourceMetrics?: { resource?: { attributes?: { key: string; value?: { stringValue?: string } }[] } }[];
}

function resourcesOf(request: WireRequest): Attributes[] {
  return (request.resourceMetrics ?? []).map((rm) => {
    const out: Attributes = {};
    for (const kv of rm.resource?.attributes ?? []) out[kv.key] = kv.value?.stringValue ?? '';
    return out;
  });
}

export interface OtlpReceiver {
  /** The endpoint to offer: `http://127.0.0.1:PORT/v1/metrics`. */
  readonly metricsUrl: string;
  /** Resource attributes of every export received, in order. */
  readonly resources: Attributes[];
  /** Resolves with the first export whose resource satisfies `test`. */
  waitFor(test: (resource: Attributes) => boolean): Promise<Attributes>;
  stop(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const resources: Attributes[] = [];
  const waiters: { test: (r: Attributes) => boolean; resolve: (r: Attributes) => void }[] = [];
  const received = (resource: Attributes) => {
    resources.push(resource);
    for (const w of waiters.splice(0))
      if (w.test(resource)) w.resolve(resource);
      else waiters.push(w);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/metrics') {
        res.writeHead(404).end();
        return;
      }
      try {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const request = /json/.test(req.headers['content-type'] ?? '')
          ? (JSON.parse(body.toString()) as WireRequest)
          : (Request.toObject(Request.decode(body)) as WireRequest);
        resourcesOf(request).forEach(received);
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    metricsUrl: `http://127.0.0.1:${port}/v1/metrics`,
    resources,
    waitFor: (test) => {
      const seen = resources.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
