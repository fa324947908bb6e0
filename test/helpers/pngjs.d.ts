// pngjs ships no types (it comes with qrcode); the one call the tests make of it.
declare module 'pngjs' {
  export const PNG: {
    sync: { read(data: Buffer): { width: number; height: number; data: Buffer } };
  };
}
