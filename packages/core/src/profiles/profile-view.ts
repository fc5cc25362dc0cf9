import { NEVER_EXPIRES_TIMESTAMP, type Profile, type ProfileTimeToLive } from "@als/contract";
import type { ProfileRecord } from "@als/db";
import type { z } from "zod";

const DAY = 86_400;
const TIME_TO_LIVE_SECONDS: Record<ProfileTimeToLive, number | null> = {
  one_day: DAY,
  one_week: 7 * DAY,
  one_month: 30 * DAY,
  one_quarter: 90 * DAY,
  one_year: 365 * DAY,
  infinity: null,
};

/** The Unix second a profile stops being served, or null when it never expires. */
export function expiryOf(timeToLive: ProfileTimeToLive, from: number): number | null {
  const seconds = TIME_TO_LIVE_SECONDS[timeToLive];
  return seconds === null ? null : from + seconds;
}

/**
 * The wire form of a stored profile (an allow-list: no embedding, no internal columns), with its
 * status as stored: the output schema encodes it for the wire (StatusOnWire).
 */
export function toProfile(record: ProfileRecord): z.input<typeof Profile> {
  return {
    profile_id: record.profile_id,
    user_id: record.user_id,
    content: record.content,
    status: record.status,
    source: record.source,
    profile_time_to_live: record.profile_time_to_live as ProfileTimeToLive,
    expiration_timestamp: record.expires_at ?? NEVER_EXPIRES_TIMESTAMP,
    tags: record.tags,
    custom_feature: record.custom_feature,
    extractor_name: record.extractor_name,
    generated_from_request_id: record.generated_from_request_id ?? "",
    created_at: record.created_at,
    last_modified_timestamp: record.last_modified_timestamp,
  };
}
