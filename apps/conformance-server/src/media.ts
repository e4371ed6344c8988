// The smallest real files of each kind, for the image and audio scenarios.

/** A 1×1 red PNG (70 bytes). */
export const RED_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

/** A WAV file with no samples (44 bytes: RIFF header, PCM mono 8 kHz 16-bit, empty data chunk). */
export const SILENT_WAV = Buffer.from(
  'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=',
  'base64',
);
