/** A value that components can subscribe to (with React's useSyncExternalStore). */
export class Observable<T> {
  private listeners = new Set<() => void>();
  constructor(private value: T) {}

  /** Current value (stable between changes). */
  get = (): T => this.value;

  /** Replace the value and notify subscribers. */
  set(value: T): void {
    this.value = value;
    for (const l of [...this.listeners]) l();
  }

  /** Subscribe; returns the unsubscribe function. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}
