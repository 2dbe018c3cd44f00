// An own-telemetry offer (projections/ownTelemetry/ownTelemetry.ts) on the wire: ServerToAgent
// connection_settings with own_metrics / own_logs / own_traces (TelemetryConnectionSettings:
// destination_endpoint and headers) and the offer's hash. Pure.

import type { OwnTelemetryOffer, TelemetryDestination } from '../../projections/ownTelemetry/ownTelemetry.ts';
import type { ConnectionSettingsOfferFields, TelemetrySettingsFields } from './wireTypes.ts';

/** ServerCapabilities_OffersConnectionSettings: declared when own_telemetry is configured. */
export const OffersConnectionSettings = 0x20;

function telemetrySettings(d: TelemetryDestination): TelemetrySettingsFields {
  const fields: TelemetrySettingsFields = { destinationEndpoint: d.endpoint };
  if (d.headers.length > 0)
    fields.headers = { headers: d.headers.map((h) => ({ key: h.key, value: h.value })) };
  return fields;
}

/** The own_* fields of the offer, without a hash (the caller decides what the hash covers). */
export function ownTelemetryFields(offer: OwnTelemetryOffer): Omit<ConnectionSettingsOfferFields, 'hash'> {
  const fields: Omit<ConnectionSettingsOfferFields, 'hash'> = {};
  if (offer.metrics) fields.ownMetrics = telemetrySettings(offer.metrics);
  if (offer.logs) fields.ownLogs = telemetrySettings(offer.logs);
  if (offer.traces) fields.ownTraces = telemetrySettings(offer.traces);
  return fields;
}

/** connection_settings carrying the offer alone: its hash is the offer's. */
export function ownTelemetrySettings(offer: OwnTelemetryOffer): ConnectionSettingsOfferFields {
  return { hash: Buffer.from(offer.hash, 'hex'), ...ownTelemetryFields(offer) };
}
